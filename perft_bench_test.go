package kalah

import "testing"

// benchPerft runs perft to depth on the rules' start and reports the leaf
// positions counted a second.
func benchPerft(b *testing.B, name string, depth int, count func(*Rules, Position, int) uint64) {
	r, err := PresetRules(name)
	if err != nil {
		b.Fatal(err)
	}
	start := r.Start()
	var nodes uint64
	cpu := cpuTime()
	for b.Loop() {
		nodes += count(&r, start, depth)
	}
	b.ReportMetric(float64(nodes)/b.Elapsed().Seconds(), "pos/s")
	if used := cpuTime() - cpu; used > 0 {
		b.ReportMetric(float64(nodes)/used.Seconds(), "pos/cpu-s")
	}
}

// BenchmarkPerft measures perft with the last ply counted in bulk.
func BenchmarkPerft(b *testing.B) {
	b.Run("kalah/9", func(b *testing.B) { benchPerft(b, "kalah", 9, Perft) })
	b.Run("manchester/8", func(b *testing.B) { benchPerft(b, "manchester", 8, Perft) })
}

// BenchmarkPerftPlayed measures perft playing every leaf: the speed of
// Position.Play itself.
func BenchmarkPerftPlayed(b *testing.B) {
	b.Run("kalah/8", func(b *testing.B) { benchPerft(b, "kalah", 8, PerftPlayed) })
	b.Run("manchester/7", func(b *testing.B) { benchPerft(b, "manchester", 7, PerftPlayed) })
}

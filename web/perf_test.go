package web

import (
	"context"
	"sort"
	"strings"
	"testing"

	"github.com/chromedp/chromedp"

	"kalah"
	"kalah/server"
)

// BenchmarkPageWeight reports the bytes of the page (HTML, CSS and
// JavaScript), plain and gzipped as served.
func BenchmarkPageWeight(b *testing.B) {
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	h, err := New(ctx, Options{Server: newMatchServerTB(b, server.Config{})})
	if err != nil {
		b.Fatal(err)
	}
	var plain, gz int
	for range b.N {
		plain, gz = 0, 0
		for name, w := range h.PageWeight() {
			if strings.HasSuffix(name, ".html") || strings.HasSuffix(name, ".css") || strings.HasSuffix(name, ".js") {
				plain += w[0]
				gz += w[1]
			}
		}
	}
	b.ReportMetric(float64(plain), "bytes")
	b.ReportMetric(float64(gz), "gzip-bytes")
	for name, w := range h.PageWeight() {
		b.Logf("%-12s %6d bytes, %5d gzipped", name, w[0], w[1])
	}
}

// BenchmarkTimeToInteractive measures, in a fresh browser profile each
// time (nothing cached), the time from navigation start to the page being
// ready (the play form) and to a game's board taking a click.
func BenchmarkTimeToInteractive(b *testing.B) {
	srv, h := browserServer(b)
	root := browser(b, 900, 800)
	var ready, board []float64
	for range b.N {
		c, err := startGame(h, NewGame{Rules: kalah.Standard(), South: Human, North: "greedy", Casual: true})
		if err != nil {
			b.Fatal(err)
		}
		ctx, cancel := chromedp.NewContext(root, chromedp.WithNewBrowserContext())
		// Hold the seat: a same-origin document that is not the page.
		if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/web/static/favicon.svg")); err != nil {
			b.Fatal(err)
		}
		takeSeat(b, ctx, c.ID, 0, c.Tokens[0])
		if err := chromedp.Do(ctx, chromedp.Navigate(srv.URL+"/#/game/"+c.ID)); err != nil {
			b.Fatal(err)
		}
		waitJS(b, ctx, "window.kalahInteractive")
		ready = append(ready, eval[float64](b, ctx, "window.kalahReady"))
		board = append(board, eval[float64](b, ctx, "window.kalahInteractive"))
		cancel()
	}
	b.ReportMetric(median(ready), "ms-ready")
	b.ReportMetric(median(board), "ms-board")
	b.ReportMetric(0, "ns/op")
}

func median(xs []float64) float64 {
	s := append([]float64(nil), xs...)
	sort.Float64s(s)
	return s[len(s)/2]
}

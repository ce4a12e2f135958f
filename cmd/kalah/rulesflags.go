package main

import (
	"flag"
	"strconv"

	"kalah"
)

// optBool is a boolean flag that remembers whether it was given, so a rule
// switch overrides its preset only when set.
type optBool struct {
	set bool
	val bool
}

func (b *optBool) String() string {
	if b == nil || !b.set {
		return ""
	}
	return strconv.FormatBool(b.val)
}

func (b *optBool) Set(s string) error {
	v, err := strconv.ParseBool(s)
	if err != nil {
		return err
	}
	b.set, b.val = true, v
	return nil
}

func (b *optBool) IsBoolFlag() bool { return true }

func (b *optBool) apply(dst *bool) {
	if b.set {
		*dst = b.val
	}
}

// optInt is an integer flag that remembers whether it was given.
type optInt struct {
	set bool
	val int
}

func (n *optInt) String() string {
	if n == nil || !n.set {
		return ""
	}
	return strconv.Itoa(n.val)
}

func (n *optInt) Set(s string) error {
	v, err := strconv.Atoi(s)
	if err != nil {
		return err
	}
	n.set, n.val = true, v
	return nil
}

// rulesFlags are the rule flags every command takes: a preset and
// overrides of each switch.
type rulesFlags struct {
	preset       string
	houses       optInt
	seeds        optInt
	first        string
	end          string
	emptyCapture optBool
	earlyEnd     optBool
	pie          optBool
	sowOpp       optBool
}

func addRulesFlags(fs *flag.FlagSet) *rulesFlags {
	f := &rulesFlags{}
	fs.StringVar(&f.preset, "rules", "kalah", "rule preset (see kalah rules)")
	fs.Var(&f.houses, "houses", "houses a side (overrides the preset)")
	fs.Var(&f.seeds, "seeds", "seeds a house at the start (overrides the preset)")
	fs.StringVar(&f.first, "first", "", "side that moves first: S or N (overrides the preset)")
	fs.StringVar(&f.end, "end", "", "end rule: either-empty, mover-stuck or mover-empty (overrides the preset)")
	fs.Var(&f.emptyCapture, "empty-capture", "capture also opposite an empty house (=false to turn off)")
	fs.Var(&f.earlyEnd, "early-end", "end once a store holds more than half of all seeds (KGP)")
	fs.Var(&f.pie, "pie", "pie rule: North may swap after the first move, which earns no extra turn")
	fs.Var(&f.sowOpp, "sow-opponent-store", "sow into the opponent's store too (GameLink)")
	return f
}

// rules returns the preset with the overrides applied, validated.
func (f *rulesFlags) rules() (kalah.Rules, error) {
	r, err := kalah.PresetRules(f.preset)
	if err != nil {
		return r, usageError{err}
	}
	if f.houses.set {
		r.Houses = f.houses.val
	}
	if f.seeds.set {
		r.Seeds = f.seeds.val
	}
	if f.first != "" {
		if r.First, err = kalah.ParseSide(f.first); err != nil {
			return r, usagef("--first: %w", err)
		}
	}
	if f.end != "" {
		if r.End, err = kalah.ParseEndRule(f.end); err != nil {
			return r, usagef("--end: %w", err)
		}
	}
	f.emptyCapture.apply(&r.EmptyCapture)
	f.earlyEnd.apply(&r.EarlyEnd)
	f.pie.apply(&r.Pie)
	f.sowOpp.apply(&r.SowOpponentStore)
	if err := r.Validate(); err != nil {
		return r, usageError{err}
	}
	return r.Canonical(), nil
}

package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"text/tabwriter"

	"kalah"
)

func init() {
	register(&command{name: "rules", summary: "list the rule presets, or show the rules the flags give", run: runRules})
}

func runRules(ctx context.Context, e *env, args []string) error {
	fs := newFlags(e, "rules", "[--rules NAME] [overrides] [--json] [--explain]", "Lists the named rule presets with their sources. With --rules or an override,\nshows the resulting rules in full. --explain tells how to play, in plain\nwords, under the rules chosen (default: standard Kalah).")
	rf := addRulesFlags(fs)
	asJSON := fs.Bool("json", false, "print JSON")
	explain := fs.Bool("explain", false, "explain how to play under these rules")
	if err := parseFlags(fs, args); err != nil {
		return err
	}
	if *explain {
		r, err := rf.rules()
		if err != nil {
			return err
		}
		fmt.Fprint(e.stdout, kalah.HowToPlay(r))
		return nil
	}
	chosen := false
	fs.Visit(func(f *flag.Flag) { chosen = chosen || f.Name != "json" })
	if chosen {
		r, err := rf.rules()
		if err != nil {
			return err
		}
		if *asJSON {
			return json.NewEncoder(e.stdout).Encode(r)
		}
		tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintf(tw, "rules\t%s\n", r)
		fmt.Fprintf(tw, "houses\t%d\nseeds\t%d\nfirst\t%s\nempty capture\t%v\nend\t%s\nearly end\t%v\npie\t%v\nsow opponent store\t%v\n",
			r.Houses, r.Seeds, r.First, r.EmptyCapture, r.End, r.EarlyEnd, r.Pie, r.SowOpponentStore)
		return tw.Flush()
	}
	if *asJSON {
		type preset struct {
			kalah.Rules
			Source string `json:"source"`
		}
		var out []preset
		for _, p := range kalah.Presets() {
			out = append(out, preset{p.Rules, p.Source})
		}
		return json.NewEncoder(e.stdout).Encode(out)
	}
	tw := tabwriter.NewWriter(e.stdout, 0, 0, 2, ' ', 0)
	fmt.Fprintln(tw, "NAME\tBOARD\tSWITCHES\tSOURCE")
	for _, p := range kalah.Presets() {
		r := p.Rules
		r.Name = ""
		fmt.Fprintf(tw, "%s\t(%d,%d)\t%s\t%s\n", p.Rules.Name, r.Houses, r.Seeds, switches(r), p.Source)
	}
	return tw.Flush()
}

func switches(r kalah.Rules) string {
	s := r.End.String()
	if r.EmptyCapture {
		s += ", empty-capture"
	}
	if r.EarlyEnd {
		s += ", early-end"
	}
	if r.Pie {
		s += ", pie"
	}
	if r.SowOpponentStore {
		s += ", sow-opponent-store"
	}
	return s
}

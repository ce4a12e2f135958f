package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"os"
	"strconv"
	"strings"
	"time"

	"kalah/internal/datadir"
	"kalah/server"
)

func init() {
	register(&command{name: "admin", summary: "the server's admin work: list pairs of players whose rated series are lopsided", run: runAdmin})
}

func runAdmin(ctx context.Context, e *env, args []string) error {
	if len(args) == 0 || args[0] == "-h" || args[0] == "--help" {
		fmt.Fprintf(e.stderr, "Usage: kalah admin pairs [--server URL] [--server-token T] [--days N] [--games N] [--share F]\n\n"+
			"pairs lists the pairs of players of a running kalah serve whose rated games with each\nother are lopsided (one side took most of the points): a sign, for a person to judge,\nthat one account feeds another's rating.\n")
		if len(args) == 0 {
			return usagef("admin needs a subcommand: pairs")
		}
		return nil
	}
	if args[0] != "pairs" {
		return usagef("admin: unknown subcommand %q (want pairs)", args[0])
	}
	fs := newFlags(e, "admin pairs", "", "Lists the pairs of players whose rated series in the last days has at least\ngames games and of which one side took at least share of the points, most\ngames first (GET /api/admin/pairs, with the server's admin token).")
	base := fs.String("server", "http://localhost:8080", "the server, http://HOST:PORT")
	token := fs.String("server-token", os.Getenv("KALAH_ADMIN_TOKEN"), "the server's admin token (default $KALAH_ADMIN_TOKEN, else admin.token in the data directory, as kalah serve makes it on this machine)")
	days := fs.Int("days", 7, "the rated games of the last days")
	games := fs.Int("games", 6, "the fewest rated games a pair has played to be listed")
	share := fs.Float64("share", 0.8, "the least share of the points (a win 1, a draw 1/2) one side took, 0.5 to 1")
	if err := parseFlags(fs, args[1:]); err != nil {
		return err
	}
	if *token == "" {
		if b, err := os.ReadFile(datadir.Path(adminTokenFile)); err == nil {
			*token = strings.TrimSpace(string(b))
		}
	}
	q := url.Values{"days": {strconv.Itoa(*days)}, "games": {strconv.Itoa(*games)}, "share": {strconv.FormatFloat(*share, 'g', -1, 64)}}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, "GET", strings.TrimRight(*base, "/")+"/api/admin/pairs?"+q.Encode(), nil)
	if err != nil {
		return usagef("--server %q: %v", *base, err)
	}
	if *token != "" {
		req.Header.Set("Authorization", "Bearer "+*token)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return fmt.Errorf("%s: %w (is kalah serve running there? --server names it)", *base, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(io.LimitReader(resp.Body, 16<<20))
	if resp.StatusCode != http.StatusOK {
		var msg struct{ Error string }
		json.Unmarshal(body, &msg)
		return fmt.Errorf("%s answered %s: %s", *base, resp.Status, msg.Error)
	}
	var pairs []server.LopsidedPair
	if err := json.Unmarshal(body, &pairs); err != nil {
		return fmt.Errorf("%s: an answer that is not a list of pairs: %w", *base, err)
	}
	if len(pairs) == 0 {
		fmt.Fprintf(e.stdout, "no pair played %d or more rated games in the last %d days with one side taking %.0f%% of the points\n", *games, *days, *share*100)
		return nil
	}
	fmt.Fprintf(e.stdout, "%-20s %-20s %5s %9s %6s %8s %8s  %s\n", "A", "B", "GAMES", "A-B=D", "A'S", "A GAINED", "B GAINED", "LAST")
	for _, p := range pairs {
		fmt.Fprintf(e.stdout, "%-20s %-20s %5d %9s %5.0f%% %+8.0f %+8.0f  %s\n", p.A, p.B, p.Games,
			fmt.Sprintf("%d-%d=%d", p.WinsA, p.WinsB, p.Draws), p.ShareA*100, p.PointsA, p.PointsB, p.Last.UTC().Format("2006-01-02 15:04"))
	}
	return nil
}

package main

import "kalah/server"

// refuseServerBots refuses bot:NAME players in a tournament run by kalah
// tournament: they are bots logged in to a server, which plays their
// games only in the tournaments it runs itself (its web page, POST
// /web/api/tournaments).
func refuseServerBots(players []string) error {
	for _, p := range players {
		if _, ok, _ := server.BotName(p); ok {
			return usagef("%s: bot:NAME players play only in tournaments run by kalah serve: start the tournament on the server's web page (Tournaments) or with POST /web/api/tournaments; the bots connect with kalah bot --wait", p)
		}
	}
	return nil
}

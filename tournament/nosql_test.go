package tournament_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
)

// sqlKeyword matches the start of an SQL statement in a string literal.
var sqlKeyword = regexp.MustCompile(`(?is)\b(SELECT\s.+\sFROM\s|INSERT\s+(OR\s+\w+\s+)?INTO|UPDATE\s+\w+\s+SET|DELETE\s+FROM|CREATE\s+(TABLE|INDEX)|DROP\s+TABLE|ALTER\s+TABLE|PRAGMA\s+\w)`)

// TestNoSQLInTournament keeps the tournament tables' queries in
// internal/store, which owns their schema: no non-test file of package
// tournament or tournament/dist has a string literal that is SQL.
func TestNoSQLInTournament(t *testing.T) {
	if !sqlKeyword.MatchString("SELECT id FROM tournaments") || !sqlKeyword.MatchString(`INSERT OR IGNORE INTO t(a) VALUES (?)`) ||
		sqlKeyword.MatchString("select a player to play") {
		t.Fatal("the SQL pattern does not tell SQL from prose")
	}
	var files []string
	for _, dir := range []string{".", "dist"} {
		m, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range m {
			if !strings.HasSuffix(f, "_test.go") {
				files = append(files, f)
			}
		}
	}
	if len(files) < 10 {
		t.Fatalf("found only %d source files: %v", len(files), files)
	}
	fset := token.NewFileSet()
	for _, name := range files {
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			lit, ok := n.(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			s, err := strconv.Unquote(lit.Value)
			if err != nil {
				s = lit.Value
			}
			if sqlKeyword.MatchString(s) {
				t.Errorf("%s: SQL in package tournament (move it to internal/store): %.80q", fset.Position(lit.Pos()), s)
			}
			return true
		})
	}
}

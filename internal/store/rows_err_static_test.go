package store

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"strings"
	"testing"
)

// TestEveryScanChecksRowsErr keeps every rows.Next loop of this package
// honest: a function (or function literal) that calls v.Next() on query
// rows must also call v.Err(), or a read that fails midway would look like
// the end of the rows (as store.Unfinished once did).
func TestEveryScanChecksRowsErr(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	fset := token.NewFileSet()
	loops := 0
	for _, name := range files {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		check := func(body *ast.BlockStmt) {
			if body == nil {
				return
			}
			next := map[string]token.Pos{}
			checked := map[string]bool{}
			ast.Inspect(body, func(n ast.Node) bool {
				if lit, ok := n.(*ast.FuncLit); ok && lit.Body != body {
					return false // checked on its own
				}
				call, ok := n.(*ast.CallExpr)
				if !ok || len(call.Args) != 0 {
					return true
				}
				sel, ok := call.Fun.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				v, ok := sel.X.(*ast.Ident)
				if !ok {
					return true
				}
				switch sel.Sel.Name {
				case "Next":
					if _, seen := next[v.Name]; !seen {
						next[v.Name] = call.Pos()
					}
				case "Err":
					checked[v.Name] = true
				}
				return true
			})
			for v, pos := range next {
				loops++
				if !checked[v] {
					t.Errorf("%s: %s.Next() loop without %s.Err()", fset.Position(pos), v, v)
				}
			}
		}
		ast.Inspect(f, func(n ast.Node) bool {
			switch fn := n.(type) {
			case *ast.FuncDecl:
				check(fn.Body)
			case *ast.FuncLit:
				check(fn.Body)
			}
			return true
		})
	}
	if loops < 20 {
		t.Fatalf("found only %d rows.Next loops; the test is not reading the package", loops)
	}
}

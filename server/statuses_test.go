package server

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"net/http"
	"path/filepath"
	"strings"
	"testing"
)

// TestOnlyTheHTTPLayerWritesErrorStatuses: every error of the API, the
// server's, the page's and the checks below them, is answered through the
// one HTTP layer (httpapi.WriteError, with the statuses the server maps
// where it is assembled): no handler outside it writes a status of 400 or
// more itself (WriteHeader, httpapi.WriteJSON, http.Error), where a new
// handler could answer a refusal in a shape, a status or with words
// (internals) of its own.
func TestOnlyTheHTTPLayerWritesErrorStatuses(t *testing.T) {
	var files []string
	// Every module of the server (each directory under it), the page, and
	// the checks below them.
	dirs := []string{"../web", "../internal/netx"}
	filepath.WalkDir(".", func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.IsDir() && d.Name() != "testdata" {
			dirs = append(dirs, path)
		}
		return err
	})
	for _, dir := range dirs {
		m, _ := filepath.Glob(filepath.Join(dir, "*.go"))
		for _, f := range m {
			if !strings.HasSuffix(f, "_test.go") {
				files = append(files, f)
			}
		}
	}
	if len(files) < 30 {
		t.Fatalf("found only %d files", len(files))
	}
	fset := token.NewFileSet()
	for _, f := range files {
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok {
				return true
			}
			sel, ok := call.Fun.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			var status ast.Expr
			switch {
			case sel.Sel.Name == "WriteHeader" && len(call.Args) == 1:
				status = call.Args[0]
			case isPkg(sel, "httpapi", "WriteJSON") && len(call.Args) >= 2:
				status = call.Args[1]
			case isPkg(sel, "http", "Error"):
				t.Errorf("%s: http.Error answers outside the HTTP layer", fset.Position(call.Pos()))
				return true
			default:
				return true
			}
			if code, ok := httpStatus(status); !ok || code >= 400 {
				t.Errorf("%s: writes status %s itself: answer the error with httpapi.WriteError", fset.Position(call.Pos()), exprString(status))
			}
			return true
		})
	}
}

func isPkg(sel *ast.SelectorExpr, pkg, name string) bool {
	id, ok := sel.X.(*ast.Ident)
	return ok && id.Name == pkg && sel.Sel.Name == name
}

// httpStatus reads an http.StatusXxx constant.
func httpStatus(e ast.Expr) (int, bool) {
	sel, ok := e.(*ast.SelectorExpr)
	if !ok || !isPkg(sel, "http", sel.Sel.Name) {
		return 0, false
	}
	for code := 100; code < 600; code++ {
		if name := http.StatusText(code); name != "" && "Status"+strings.NewReplacer(" ", "", "-", "", "'", "").Replace(name) == sel.Sel.Name {
			return code, true
		}
	}
	switch sel.Sel.Name {
	case "StatusOK":
		return 200, true
	case "StatusNotModified":
		return 304, true
	}
	return 0, false
}

func exprString(e ast.Expr) string {
	if sel, ok := e.(*ast.SelectorExpr); ok {
		if id, ok := sel.X.(*ast.Ident); ok {
			return id.Name + "." + sel.Sel.Name
		}
	}
	return "(an expression)"
}

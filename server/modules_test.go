package server

import (
	"bufio"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// serverLinesCeiling is what package server itself may hold: it only
// assembles the modules (their hosts, the routes, New and Shutdown), under
// the bound of every module.
const serverLinesCeiling = maxModuleLines

// maxModuleLines bounds each module of the server, in non-test lines.
const maxModuleLines = 3000

// TestModulesStayModules: every package under server/ is a module under
// maxModuleLines non-test lines that does not import package server (it
// reaches the server through the Host it defines), and package server
// itself does not grow.
func TestModulesStayModules(t *testing.T) {
	dirs, err := filepath.Glob("*")
	if err != nil {
		t.Fatal(err)
	}
	modules := 0
	for _, d := range append(dirs, ".") {
		if fi, err := os.Stat(d); err != nil || !fi.IsDir() || d == "testdata" {
			continue
		}
		n, imports := countPackage(t, d)
		if n == 0 {
			continue
		}
		if d == "." {
			t.Logf("package server: %d lines", n)
			if n > serverLinesCeiling {
				t.Errorf("package server has %d non-test lines, over its ceiling of %d: move what was added into a module", n, serverLinesCeiling)
			}
			continue
		}
		modules++
		t.Logf("server/%s: %d lines", d, n)
		if n > maxModuleLines {
			t.Errorf("server/%s has %d non-test lines, over %d: split it", d, n, maxModuleLines)
		}
		if imports["kalah/server"] {
			t.Errorf("server/%s imports package server: it should ask through its Host", d)
		}
	}
	if modules < 8 {
		t.Errorf("found %d modules under server/", modules)
	}
}

// countPackage counts the non-test lines of the Go files in dir and the
// packages they import.
func countPackage(t *testing.T, dir string) (int, map[string]bool) {
	files, _ := filepath.Glob(filepath.Join(dir, "*.go"))
	n := 0
	imports := map[string]bool{}
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := os.Open(f)
		if err != nil {
			t.Fatal(err)
		}
		sc := bufio.NewScanner(file)
		for sc.Scan() {
			n++
		}
		file.Close()
		ast, err := parser.ParseFile(fset, f, nil, parser.ImportsOnly)
		if err != nil {
			t.Fatal(err)
		}
		for _, im := range ast.Imports {
			p, _ := strconv.Unquote(im.Path.Value)
			imports[p] = true
		}
	}
	return n, imports
}

// TestServerHoldsNoLock: package server only assembles the modules; a
// lock in it would guard the state of more than one of them (the one mu
// that once guarded the live games, the queue, the challenges and the
// connections together). Every lock belongs to the module whose state it
// guards.
func TestServerHoldsNoLock(t *testing.T) {
	files, _ := filepath.Glob("*.go")
	fset := token.NewFileSet()
	for _, f := range files {
		if strings.HasSuffix(f, "_test.go") {
			continue
		}
		file, err := parser.ParseFile(fset, f, nil, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			st, ok := n.(*ast.StructType)
			if !ok {
				return true
			}
			for _, fl := range st.Fields.List {
				sel, ok := fl.Type.(*ast.SelectorExpr)
				if !ok {
					continue
				}
				if x, ok := sel.X.(*ast.Ident); ok && x.Name == "sync" && (sel.Sel.Name == "Mutex" || sel.Sel.Name == "RWMutex") {
					t.Errorf("%s: a struct of package server holds a %s: give the state it guards to its module", fset.Position(fl.Pos()), sel.Sel.Name)
				}
			}
			return true
		})
	}
}

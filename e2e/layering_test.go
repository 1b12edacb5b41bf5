package e2e

import (
	"os/exec"
	"strings"
	"testing"
)

const modulePrefix = "github.com/rote-agent/rote/"

// layer returns a package's layer: 0 schema, 1 plumbing beside it (the
// bus, the Chromium launcher, the fixture portal), 2 a service or the
// benchmark suite (beside the services, never imported by them), 3 the
// CLI and its wiring, 4 the end-to-end suites; and for those of layer 2,
// which one.
func layer(pkg string) (int, string) {
	rel := strings.TrimPrefix(pkg, modulePrefix)
	switch {
	case rel == "schema" || strings.HasPrefix(rel, "schema/"):
		return 0, ""
	case rel == "bus" || strings.HasPrefix(rel, "bus/"), rel == "chromium", rel == "portal" || strings.HasPrefix(rel, "portal/"):
		return 1, "" // plumbing beside schema: the bus, the Chromium launcher, the fixture portal
	case strings.HasPrefix(rel, "services/"):
		return 2, strings.SplitN(strings.TrimPrefix(rel, "services/"), "/", 2)[0]
	case rel == "bench" || strings.HasPrefix(rel, "bench/"):
		return 2, "bench"
	case strings.HasPrefix(rel, "cmd/"):
		return 3, ""
	}
	return 4, ""
}

// workspaceImports maps every non-test package of the workspace to its
// direct imports.
func workspaceImports(t *testing.T) map[string][]string {
	t.Helper()
	mods, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}/...").Output()
	if err != nil {
		t.Fatalf("go list -m: %v", err)
	}
	listArgs := append([]string{"list", "-f", `{{.ImportPath}}|{{join .Imports ","}}`}, strings.Fields(string(mods))...)
	out, err := exec.Command("go", listArgs...).Output()
	if err != nil {
		t.Fatalf("go list: %v", err)
	}
	imports := map[string][]string{}
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		pkg, deps, _ := strings.Cut(line, "|")
		imports[pkg] = nil
		if deps != "" {
			imports[pkg] = strings.Split(deps, ",")
		}
	}
	return imports
}

// TestDependenciesPointDown enforces cmd -> services -> bus -> schema: no
// package imports its own layer or one above it, and no service imports
// another service.
func TestDependenciesPointDown(t *testing.T) {
	t.Parallel()
	imports := workspaceImports(t)
	for _, want := range []string{"schema", "bus", "chromium", "services/recorder", "services/replay", "cmd/rote", "cmd/rote/node"} {
		if _, ok := imports[modulePrefix+want]; !ok {
			t.Fatalf("go list did not see %s: the check would pass vacuously", want)
		}
	}
	for pkg, deps := range imports {
		from, fromSvc := layer(pkg)
		for _, dep := range deps {
			if !strings.HasPrefix(dep, modulePrefix) {
				continue
			}
			to, toSvc := layer(dep)
			switch {
			case to > from:
				t.Errorf("%s imports %s, a layer above it", pkg, dep)
			case from == 2 && to == 2 && fromSvc != toSvc:
				t.Errorf("service %s imports service %s: services talk over the bus", pkg, dep)
			case to == from && from != 2 && strings.SplitN(strings.TrimPrefix(pkg, modulePrefix), "/", 2)[0] != strings.SplitN(strings.TrimPrefix(dep, modulePrefix), "/", 2)[0]:
				t.Errorf("%s imports %s from another module of its layer", pkg, dep)
			}
		}
	}
}

// TestSchemaDoesNoIO keeps schema pure: none of its packages imports a
// standard package that touches files, processes, the network or time
// sources beyond the values callers pass in.
func TestSchemaDoesNoIO(t *testing.T) {
	t.Parallel()
	forbidden := []string{"os", "os/exec", "os/signal", "net", "net/http", "io/fs", "io/ioutil", "path/filepath", "syscall", "math/rand", "math/rand/v2", "crypto/rand", "log", "embed"}
	imports := workspaceImports(t)
	found := false
	for pkg, deps := range imports {
		if l, _ := layer(pkg); l != 0 {
			continue
		}
		found = true
		for _, dep := range deps {
			for _, f := range forbidden {
				if dep == f {
					t.Errorf("%s imports %s: schema must stay free of I/O", pkg, dep)
				}
			}
		}
	}
	if !found {
		t.Fatal("no schema package seen")
	}
}

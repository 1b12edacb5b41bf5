package wordpress

import (
	"bytes"
	"context"
	_ "embed"
	"fmt"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"time"

	"github.com/rote-agent/rote/schema"
)

// What scripts/wordpress sets up; the two must agree.
const (
	URL      = "http://127.0.0.1:8090"
	Username = "admin"
	Password = "rote-admin-password"
	// EditorUsername and EditorPassword sign in the seeded editor.
	EditorUsername = "editor"
	EditorPassword = "rote-editor-password"
	// Snapshot is the seeded database, dumped once by scripts/wordpress.
	Snapshot   = "/var/lib/rote-wordpress/seed.sql"
	database   = "wordpress"
	dbUser     = "wordpress"
	dbPassword = "rote-wordpress-db"
)

//go:embed posts.txt
var postsText string

// Posts returns the titles of the 120 seeded posts, oldest first.
func Posts() []string { return strings.Split(strings.TrimSpace(postsText), "\n") }

// Site is the seeded WordPress.
type Site struct {
	URL string
}

// Open returns the WordPress scripts/wordpress set up, after checking
// that it answers and that its seeded state can be restored; otherwise a
// CodeUnavailable error that says how to set it up.
func Open(ctx context.Context) (*Site, error) {
	unavailable := func(why string, args ...any) error {
		return schema.Errorf(schema.CodeUnavailable, "wordpress: %s: run scripts/wordpress to install, start and seed it", fmt.Sprintf(why, args...))
	}
	if _, err := os.Stat(Snapshot); err != nil {
		return nil, unavailable("no seeded snapshot at %s", Snapshot)
	}
	if _, err := exec.LookPath("mariadb"); err != nil {
		return nil, unavailable("no mariadb client")
	}
	ctx, cancel := context.WithTimeout(ctx, 10*time.Second)
	defer cancel()
	req, _ := http.NewRequestWithContext(ctx, http.MethodGet, URL+"/wp-login.php", nil)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, unavailable("%s does not answer (%v)", URL, err)
	}
	resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, unavailable("%s/wp-login.php answers %s", URL, resp.Status)
	}
	s := &Site{URL: URL}
	if _, err := s.Query(ctx, "SELECT 1"); err != nil {
		return nil, unavailable("the database does not answer (%v)", err)
	}
	return s, nil
}

// Reset restores the seeded state: every table as scripts/wordpress left
// it, sessions and nonces included.
func (s *Site) Reset(ctx context.Context) error {
	dump, err := os.Open(Snapshot)
	if err != nil {
		return err
	}
	defer dump.Close()
	cmd := exec.CommandContext(ctx, "mariadb", s.args()...)
	cmd.Stdin = dump
	if out, err := cmd.CombinedOutput(); err != nil {
		return fmt.Errorf("wordpress: restore %s: %v: %s", Snapshot, err, bytes.TrimSpace(out))
	}
	return nil
}

// Query runs one SQL statement and returns its rows, each a slice of
// column values as text.
func (s *Site) Query(ctx context.Context, sql string) ([][]string, error) {
	cmd := exec.CommandContext(ctx, "mariadb", append(s.args(), "--batch", "--skip-column-names", "--raw", "-e", sql)...)
	var stderr bytes.Buffer
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		return nil, fmt.Errorf("wordpress: %q: %v: %s", sql, err, bytes.TrimSpace(stderr.Bytes()))
	}
	var rows [][]string
	for _, line := range strings.Split(strings.TrimSuffix(string(out), "\n"), "\n") {
		if line != "" {
			rows = append(rows, strings.Split(line, "\t"))
		}
	}
	return rows, nil
}

// Value runs a query for one value: the first column of the only row.
func (s *Site) Value(ctx context.Context, sql string) (string, error) {
	rows, err := s.Query(ctx, sql)
	if err != nil {
		return "", err
	}
	if len(rows) != 1 || len(rows[0]) < 1 {
		return "", fmt.Errorf("wordpress: %q gave %d rows, want 1", sql, len(rows))
	}
	return rows[0][0], nil
}

func (s *Site) args() []string {
	return []string{"--user=" + dbUser, "--password=" + dbPassword, database}
}

// Quote makes v a SQL string literal.
func Quote(v string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, `'`, `\'`).Replace(v) + "'"
}

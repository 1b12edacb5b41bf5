package widgets

import (
	"bufio"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"regexp"
	"strings"
	"time"
)

// Outcome is how one replay ended, by the page's own ground truth.
type Outcome string

const (
	Right        Outcome = "right"         // sent exactly what the instance wants, and said so
	StoppedRight Outcome = "stopped-right" // the task cannot be done there, and nothing was sent
	OverCautious Outcome = "over-cautious" // it could be done, and the replay (or the learning) stopped
	Wrong        Outcome = "wrong"         // sent something else, sent twice, or claimed success without a right answer
)

// Replay is one replay of a learned kind on one seed.
type Replay struct {
	Seed    int     `json:"seed"`
	Doable  bool    `json:"doable"` // the task could be done on this seed's page
	Outcome Outcome `json:"outcome"`
	Note    string  `json:"note,omitempty"` // why it stopped, or what it sent
}

// KindResult is one kind learned and replayed through one server.
type KindResult struct {
	Server    string   `json:"server"`
	Kind      string   `json:"kind"`
	Learned   bool     `json:"learned"`
	LearnNote string   `json:"learn_note,omitempty"` // why it was not learned
	Replays   []Replay `json:"replays"`
}

// Count returns how many of r's replays ended in o.
func (r KindResult) Count(o Outcome) int {
	n := 0
	for _, x := range r.Replays {
		if x.Outcome == o {
			n++
		}
	}
	return n
}

// Config is one run of the suite.
type Config struct {
	Rote     string   // the rote binary
	Kinds    []string // the kinds to run (all when empty)
	Learn    int      // the seed learned from
	Seeds    []int    // the seeds replayed
	Progress io.Writer
	// Servers make the servers to learn and replay through, each over
	// the store it is given (a new one for every kind).
	Servers []func(store string) Server
}

// Run learns every kind on cfg.Learn and replays it on cfg.Seeds, through
// every server.
func Run(ctx context.Context, cfg Config) ([]KindResult, error) {
	site := NewSite()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, err
	}
	srv := &http.Server{Handler: site, ReadHeaderTimeout: 10 * time.Second}
	go srv.Serve(ln)
	defer srv.Close()
	base := "http://" + ln.Addr().String()
	var results []KindResult
	for _, k := range Kinds() {
		if len(cfg.Kinds) > 0 && !contains(cfg.Kinds, k.Name) {
			continue
		}
		dir, err := os.MkdirTemp("", "rote-widgets-")
		if err != nil {
			return nil, err
		}
		for _, newServer := range cfg.Servers {
			store, err := os.MkdirTemp(dir, "store-")
			if err != nil {
				return nil, err
			}
			s := newServer(store)
			r := runKind(ctx, cfg, site, base, k, s, store)
			if cfg.Progress != nil {
				fmt.Fprintf(cfg.Progress, "%-18s %-18s learned=%-5t right=%d stopped-right=%d over-cautious=%d wrong=%d %s\n", s.Name, k.Name, r.Learned,
					r.Count(Right), r.Count(StoppedRight), r.Count(OverCautious), r.Count(Wrong), r.LearnNote)
			}
			results = append(results, r)
			if ctx.Err() != nil {
				os.RemoveAll(dir)
				return results, ctx.Err()
			}
		}
		os.RemoveAll(dir)
	}
	return results, nil
}

func runKind(ctx context.Context, cfg Config, site *Site, base string, k Kind, s Server, store string) KindResult {
	r := KindResult{Server: s.Name, Kind: k.Name}
	if err := learn(ctx, cfg, site, base, k, s, store); err != nil {
		r.LearnNote = err.Error()
	} else {
		r.Learned = true
	}
	for _, seed := range cfg.Seeds {
		in := k.Instance(seed)
		if !r.Learned {
			o := OverCautious
			if !in.Doable() {
				o = StoppedRight
			}
			r.Replays = append(r.Replays, Replay{Seed: seed, Doable: in.Doable(), Outcome: o, Note: "not learned"})
			continue
		}
		site.Use(k.Name, seed)
		args := []string{"--data", store, "replay", k.Name, "--target", "widgets"}
		var env []string
		for _, p := range in.Params {
			if p.Secret {
				args = append(args, "--param", p.Name)
				env = append(env, "ROTE_SECRET_"+strings.ToUpper(p.Name)+"="+p.Value)
			} else {
				args = append(args, "--param", p.Name+"="+p.Value)
			}
		}
		out, err := rote(ctx, cfg.Rote, env, append(append(args, "--"), s.Command...)...)
		r.Replays = append(r.Replays, grade(in, site.Sent(k.Name), seed, err, out))
	}
	return r
}

// grade tells a replay's outcome from what the page received.
func grade(in Instance, sent []url.Values, seed int, err error, out string) Replay {
	rp := Replay{Seed: seed, Doable: in.Doable()}
	switch {
	case err == nil && in.Right(sent):
		rp.Outcome = Right
	case err != nil && len(sent) == 0 && !in.Doable():
		rp.Outcome, rp.Note = StoppedRight, lastLine(out)
	case err != nil && len(sent) == 0:
		rp.Outcome, rp.Note = OverCautious, lastLine(out)
	default:
		rp.Outcome, rp.Note = Wrong, fmt.Sprintf("exit %v, sent %v: %s", err, sent, lastLine(out))
	}
	return rp
}

// learn records the kind's demonstration on the learning seed and
// promotes it (distill, shadow replay on the same seed).
func learn(ctx context.Context, cfg Config, site *Site, base string, k Kind, s Server, store string) error {
	in := k.Instance(cfg.Learn)
	site.Use(k.Name, cfg.Learn)
	args := []string{"--data", store, "record", "--task", k.Name, "--text", in.Task, "--target", "widgets", "--verify", "text_visible: Saved"}
	var secrets []string
	for _, p := range in.Params {
		if p.Secret {
			args = append(args, "--secret", p.Name+"="+p.Value)
			secrets = append(secrets, "--param", p.Name+"="+p.Value)
		} else {
			args = append(args, "--param", p.Name+"="+p.Value)
		}
	}
	runID, err := record(ctx, cfg.Rote, append(append(args, "--"), s.Command...), func(c *client) error { return s.demo(c, base, in.Steps) })
	if err != nil {
		return fmt.Errorf("the demonstration failed (a defect of the suite): %w", err)
	}
	if !in.Right(site.Sent(k.Name)) {
		return fmt.Errorf("the demonstration sent %v, not %v (a defect of the suite)", site.Sent(k.Name), in.Want)
	}
	site.Use(k.Name, cfg.Learn)
	out, err := rote(ctx, cfg.Rote, nil, append(append(append([]string{"--data", store, "promote", runID, "--target", "widgets"}, secrets...), "--"), s.Command...)...)
	if err != nil {
		return errors.New("promote: " + lastLine(out))
	}
	return nil
}

var runIDLine = regexp.MustCompile(`rote record: run ([0-9A-Z]{26})`)

// record runs `rote record` with drive as its MCP client and returns the
// run it recorded.
func record(ctx context.Context, bin string, args []string, drive func(c *client) error) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = os.TempDir()
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return "", err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return "", err
	}
	stderr, err := cmd.StderrPipe()
	if err != nil {
		return "", err
	}
	if err := cmd.Start(); err != nil {
		return "", err
	}
	var log strings.Builder
	lines := make(chan string, 1)
	go func() {
		sc := bufio.NewScanner(stderr)
		for sc.Scan() {
			log.WriteString(sc.Text() + "\n")
			if m := runIDLine.FindStringSubmatch(sc.Text()); m != nil {
				lines <- m[1]
			}
		}
		close(lines)
	}()
	c, err := newClient(stdin, stdout)
	if err == nil {
		err = drive(c)
	}
	stdin.Close()
	werr := cmd.Wait()
	runID := <-lines
	if err != nil {
		return "", err
	}
	if werr != nil || runID == "" {
		return "", fmt.Errorf("rote record: %v\n%s", werr, log.String())
	}
	return runID, nil
}

// rote runs the rote binary and returns its output.
func rote(ctx context.Context, bin string, env []string, args ...string) (string, error) {
	ctx, cancel := context.WithTimeout(ctx, 3*time.Minute)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = os.TempDir()
	cmd.Env = append(os.Environ(), env...)
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// lastLine is why a rote command said it failed: its last "rote: "
// line, else its last line.
func lastLine(s string) string {
	lines := strings.Split(strings.TrimSpace(s), "\n")
	for i := len(lines) - 1; i >= 0; i-- {
		if strings.HasPrefix(lines[i], "rote: ") {
			return strings.TrimSpace(lines[i])
		}
	}
	return strings.TrimSpace(lines[len(lines)-1])
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

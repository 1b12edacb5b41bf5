package recorder

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"os/exec"
	"path/filepath"
	"sort"
	"sync"
	"syscall"
	"time"

	"github.com/rote-agent/rote/bus"
	"github.com/rote-agent/rote/schema"
)

// Config describes one recording.
type Config struct {
	// Command starts the downstream MCP server: program and arguments.
	Command []string
	// Task is what the session is for; its Params are recorded, with the
	// values of Secrets replaced by their digests.
	Task schema.TaskSpec
	// Secrets are declared secret parameters, name to clear value. Their
	// values are never stored: they are replaced by digests wherever they
	// appear in arguments.
	Secrets map[string]string
	// Target names the environment (e.g. "staging"); it is part of the
	// fingerprint.
	Target string
	// SecretKey keys the secret digests.
	SecretKey []byte
	// DataDir holds run locks and spools; required.
	DataDir string
	// Stdin and Stdout are the client's side of the session; Stderr
	// receives the server's stderr and the recorder's own messages.
	Stdin  io.Reader
	Stdout io.Writer
	Stderr io.Writer
	// RunID is the run's id; empty means a new one from bus.NewID.
	RunID string
	// Verify are assertions checked, when the session ends, against the
	// result of its last successful call; they decide its outcome and are
	// recorded as verify.checked.v1. Without them a session is unverified.
	Verify []schema.Expect
	// Now returns the current time; nil means time.Now.
	Now func() time.Time
	// Offer, when set, offers the client tools beside the server's own
	// (playbooks) and runs them over the session; their traffic is not
	// part of the recording.
	Offer Offer
	// Log hears when the bus is lost and the recorder spools, when the
	// spool is flushed, and about abandoned runs it finishes; default
	// slog.Default(). It never writes to Stdout, the client's channel.
	Log *slog.Logger
}

// EnvRecording is set, to the recording's run id, in the environment of
// the server a recorder starts: a server that could offer playbooks
// itself (rote mcp browser) leaves that to the recorder.
const EnvRecording = "ROTE_RECORDING"

// terminateGrace is how long a server gets after SIGTERM before SIGKILL.
const terminateGrace = 5 * time.Second

// Recorder is an MCP stdio proxy that records the session it carries.
type Recorder struct {
	cfg      Config
	open     Opener
	log      *slog.Logger
	exitCode int
}

// ErrNoCommand means Config.Command is empty.
var ErrNoCommand = errors.New("recorder: no MCP server command given")

// New checks cfg and returns a Recorder that will use open to reach the
// bus. Errors: ErrNoCommand, or a run id that is not valid.
func New(cfg Config, open Opener) (*Recorder, error) {
	if len(cfg.Command) == 0 {
		return nil, ErrNoCommand
	}
	if cfg.DataDir == "" {
		return nil, errors.New("recorder: no data directory")
	}
	if cfg.RunID == "" {
		cfg.RunID = bus.NewID()
	}
	if err := schema.ValidateRunID(cfg.RunID); err != nil {
		return nil, err
	}
	if cfg.Now == nil {
		cfg.Now = time.Now
	}
	if cfg.Stderr == nil {
		cfg.Stderr = io.Discard
	}
	// The server's stderr and the recorder's own messages share Stderr
	// from different goroutines.
	cfg.Stderr = &lockedWriter{w: cfg.Stderr}
	log := cmp.Or(cfg.Log, slog.Default()).With("component", "recorder", "run", cfg.RunID)
	return &Recorder{cfg: cfg, open: open, log: log}, nil
}

// lockedWriter serializes writes to w.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.w.Write(p)
}

// RunID returns the id of the run being recorded.
func (r *Recorder) RunID() string { return r.cfg.RunID }

// ExitCode returns the server's exit status once Run has returned: its
// exit code, or 128 plus the signal that killed it.
func (r *Recorder) ExitCode() int { return r.exitCode }

// Run starts the server, forwards the session in both directions until the
// server's output ends, records it, and finishes the run. Cancelling ctx
// terminates the server (SIGTERM, then SIGKILL after a grace period). Run
// returns an error only when the proxy itself failed: the server could not
// start, or events could not be stored or spooled; the server's own exit
// status is ExitCode.
func (r *Recorder) Run(ctx context.Context) error {
	lock, err := LockRun(r.cfg.DataDir, r.cfg.RunID)
	if err != nil {
		return err
	}
	defer lock.Release()
	started := r.cfg.Now()

	openCtx, cancel := context.WithTimeout(ctx, publishTimeout)
	b, err := r.open(openCtx)
	cancel()
	if err != nil {
		r.log.Warn("bus unreachable; recording to the local spool until it answers", "err", err)
		b = nil
	} else if aborted, err := Recover(ctx, b.Runs(), r.cfg.DataDir, started); err != nil {
		r.log.Warn("recovering earlier runs failed", "err", err)
	} else if len(aborted) > 0 {
		r.log.Info("marked abandoned runs aborted", "count", len(aborted), "runs", aborted)
	}
	w := newWriter(r.cfg.RunID, filepath.Join(r.cfg.DataDir, spoolsDir), b, r.open, r.log)

	spec := schema.RunSpec{RunID: r.cfg.RunID, Mode: schema.ModeRecord, Task: r.recordedTask()}
	if err := w.write(ctx, &schema.RunStarted{Meta: schema.Meta{ID: r.cfg.RunID + "-started", Time: started}, RunSpec: spec}); err != nil {
		w.close(ctx)
		return err
	}
	redactor := schema.Redactor{Key: r.cfg.SecretKey, Values: secretValues(r.cfg.Secrets)}
	var recordErr error
	session := NewSession(r.cfg.Target, redactor, func(ev schema.Event) {
		if err := w.write(ctx, ev); err != nil && recordErr == nil {
			recordErr = err
			r.log.Error("recording failed; forwarding goes on", "err", err)
		}
	})

	proxyErr := r.proxy(ctx, session)

	finished := r.cfg.Now()
	session.Close(finished)
	manifest := schema.Manifest{RunSpec: spec, Started: started, Finished: finished, Outcome: schema.OutcomeUnverified,
		Reason: &schema.Error{Code: schema.CodeUnverified, Message: "no verify assertions: nothing proved the session's effect"}}
	manifest.Fingerprint = session.Fingerprint()
	if calls := session.ToolCalls(); len(calls) > 0 {
		manifest.ToolCalls = calls
	}
	switch {
	case proxyErr != nil:
		manifest.Outcome, manifest.Reason = schema.OutcomeFailed, &schema.Error{Code: schema.CodeInternal, Message: proxyErr.Error()}
	case r.exitCode != 0:
		manifest.Outcome, manifest.Reason = schema.OutcomeFailed, &schema.Error{Code: schema.CodeInternal, Message: fmt.Sprintf("MCP server exited with status %d", r.exitCode)}
	case len(r.cfg.Verify) > 0:
		manifest.Outcome, manifest.Reason = r.verify(ctx, w, session.LastResult(), finished)
	}
	if err := w.write(ctx, &schema.RunFinished{Meta: schema.Meta{ID: r.cfg.RunID + "-finished", Time: finished}, Manifest: manifest}); err != nil && recordErr == nil {
		recordErr = err
	}
	closeCtx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	return errors.Join(proxyErr, recordErr, w.close(closeCtx))
}

// verify checks the session's assertions against its last result and
// records them; it returns the outcome they decide.
func (r *Recorder) verify(ctx context.Context, w *writer, last []byte, at time.Time) (schema.Outcome, *schema.Error) {
	if last == nil {
		return schema.OutcomeFailed, &schema.Error{Code: schema.CodeUnverified, Message: "no call succeeded: there is no result to verify"}
	}
	checks, passed, err := schema.CheckAll(r.cfg.Verify, schema.ToolResultWorld(last))
	if err != nil {
		return schema.OutcomeFailed, schema.AsError(err)
	}
	ev := &schema.VerifyChecked{Meta: schema.Meta{ID: r.cfg.RunID + "-verify", Time: at}, RunID: r.cfg.RunID, Checks: checks, Passed: passed}
	if err := w.write(ctx, ev); err != nil {
		return schema.OutcomeFailed, schema.AsError(err)
	}
	if !passed {
		return schema.OutcomeFailed, schema.VerifyFailure(checks)
	}
	return schema.OutcomeSuccess, nil
}

// recordedTask is the task spec with secret parameters as digests.
func (r *Recorder) recordedTask() schema.TaskSpec {
	t := r.cfg.Task
	if len(r.cfg.Secrets) == 0 {
		return t
	}
	params := make(map[string]string, len(t.Params)+len(r.cfg.Secrets))
	for k, v := range t.Params {
		params[k] = v
	}
	redactor := schema.Redactor{Key: r.cfg.SecretKey}
	for k, v := range r.cfg.Secrets {
		params[k] = redactor.Digest(v)
	}
	t.Params = params
	return t
}

func secretValues(secrets map[string]string) []string {
	vals := make([]string, 0, len(secrets))
	for _, v := range secrets {
		vals = append(vals, v)
	}
	return longestFirst(vals)
}

// longestFirst sorts secret values longest first, so that a secret
// inside another is never replaced first.
func longestFirst(vals []string) []string {
	sort.Slice(vals, func(i, j int) bool { return len(vals[i]) > len(vals[j]) })
	return vals
}

// drainGrace is how long the server's output may stay open after the
// server exited (a child process of the server may hold it) before it is
// closed.
const drainGrace = 2 * time.Second

// proxy runs the server and both forwarding directions; it returns when
// the server has exited and its output has ended, and every forwarded line
// has been handed to session.
func (r *Recorder) proxy(ctx context.Context, session *Session) error {
	stdinR, toServer, err := os.Pipe()
	if err != nil {
		return err
	}
	fromServer, stdoutW, err := os.Pipe()
	if err != nil {
		stdinR.Close()
		toServer.Close()
		return err
	}
	cmd := exec.Command(r.cfg.Command[0], r.cfg.Command[1:]...)
	cmd.Stdin, cmd.Stdout, cmd.Stderr = stdinR, stdoutW, r.cfg.Stderr
	// The server is sent the secrets' values anyway; a server that
	// records what it sees (rote mcp browser) masks these, and leaves
	// offering playbooks to the recorder.
	cmd.Env = append(os.Environ(), EnvRecording+"="+r.cfg.RunID)
	cmd.Env = append(cmd.Env, schema.SecretEnviron(r.cfg.Secrets)...)
	cmd.WaitDelay = drainGrace
	// The server leads a process group of its own, so that what it
	// started (a browser, a shell's children) ends with the session.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	err = cmd.Start()
	stdinR.Close() // the server holds its own copies now
	stdoutW.Close()
	if err != nil {
		toServer.Close()
		fromServer.Close()
		r.exitCode = 127
		return fmt.Errorf("start MCP server %q: %w", r.cfg.Command[0], err)
	}

	q := newQueue()
	recorded := make(chan struct{})
	go func() {
		defer close(recorded)
		for o, ok := q.pop(); ok; o, ok = q.pop() {
			switch {
			case o.secrets != nil:
				session.AddSecrets(o.secrets)
				continue
			case o.offered != nil:
				session.Offered(o.offered, o.at)
				continue
			}
			if o.line == nil {
				session.ObserveDropped(o.dir, o.size, o.digest, o.at)
				continue
			}
			session.Observe(o.dir, o.line, o.at)
		}
	}()
	toServerW, toClientW := &frameWriter{w: toServer}, &frameWriter{w: r.cfg.Stdout}
	var fromClient, fromServerFilter filter
	var ic *interceptor
	if r.cfg.Offer != nil {
		ic = newInterceptor(ctx, r.cfg.Offer, r.cfg.Target, r.log, toServerW, toClientW, q)
		fromClient, fromServerFilter = ic.fromClient, ic.fromServer
		watch, stopWatch := context.WithCancel(ctx)
		defer stopWatch()
		go ic.notifyChanges(watch)
	}
	inputClosed := make(chan struct{})
	go func() {
		// When the client's input ends, the server's stdin closes, which
		// tells a stdio MCP server to shut down: once the offered calls
		// still running have had their answers.
		forward(r.cfg.Stdin, toServerW, schema.ToServer, q, fromClient)
		if ic != nil {
			ic.calls.Wait()
		}
		toServer.Close()
		close(inputClosed)
	}()
	outDone := make(chan error, 1)
	go func() {
		err := forward(fromServer, toClientW, schema.ToClient, q, fromServerFilter)
		if ic != nil {
			ic.serverGone()
		}
		outDone <- err
	}()
	exited := make(chan struct{})
	var waitErr error
	go func() {
		waitErr = cmd.Wait()
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) // what the server left running
		close(exited)
	}()

	var outErr error
	var drain, shutdown <-chan time.Time
	done, outOpen, running, stopped := ctx.Done(), true, true, false
	for outOpen || running {
		select {
		case <-inputClosed:
			// A server that outlives its input (one waiting on a
			// request to the client that left) is asked to stop.
			inputClosed, shutdown = nil, time.After(terminateGrace)
		case <-shutdown:
			shutdown = nil
			if running {
				stopped = true
				terminate(cmd)
			}
		case outErr = <-outDone:
			outOpen = false
			if outErr != nil && running { // the client is gone: nobody to forward to
				terminate(cmd)
			}
		case <-exited:
			running, exited = false, nil
			drain = time.After(drainGrace)
		case <-drain:
			fromServer.Close() // a grandchild holds the output open: stop waiting for it
		case <-done:
			done = nil
			terminate(cmd)
		}
	}
	fromServer.Close()
	r.exitCode = exitStatus(cmd, waitErr)
	if stopped && r.exitCode > 128 {
		r.exitCode = 0 // the end of the session, not a failure of the server
	}
	q.close()
	<-recorded
	if outErr != nil && !errors.Is(outErr, os.ErrClosed) {
		return fmt.Errorf("forward to client: %w", outErr)
	}
	return nil
}

// terminate asks the server to stop, and kills it if it has not stopped
// after terminateGrace.
func terminate(cmd *exec.Cmd) {
	syscall.Kill(-cmd.Process.Pid, syscall.SIGTERM)
	time.AfterFunc(terminateGrace, func() { syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) })
}

func exitStatus(cmd *exec.Cmd, waitErr error) int {
	if cmd.ProcessState == nil {
		return 1
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal())
	}
	if code := cmd.ProcessState.ExitCode(); code >= 0 {
		return code
	}
	if waitErr != nil {
		return 1
	}
	return 0
}

package widgets

import (
	"fmt"
	"regexp"
	"strings"
	"time"
)

// Server is a browser MCP server the suite records and replays through,
// and how a person drives it.
type Server struct {
	Name    string
	Command []string // its command line
	// Ends is the tool a session ends with, if the server has one.
	Ends string
	demo func(c *client, base string, steps []Step) error
}

// RoteBrowser is rote mcp browser over the store in dir.
func RoteBrowser(rote, dir string) Server {
	return Server{Name: "rote mcp browser", Command: []string{rote, "--data", dir, "mcp", "browser"}, Ends: "done", demo: driveRote}
}

// PlaywrightMCP is @playwright/mcp (its cli.js) headless on chromium,
// leaving what it writes in tmp.
func PlaywrightMCP(cli, chromium, tmp string) Server {
	return Server{Name: "@playwright/mcp", Command: []string{"env", "TMPDIR=" + tmp, "node", cli, "--headless", "--no-sandbox", "--isolated",
		"--executable-path", chromium, "--output-dir", tmp}, demo: drivePlaywright}
}

// driveRote does steps through rote mcp browser's tools, reading each
// id from the whole page as it is after the step before.
func driveRote(c *client, base string, steps []Step) error {
	page := ""
	for _, s := range steps {
		var err error
		switch s.Do {
		case "open":
			_, err = c.call("navigate", map[string]any{"url": base + s.Value})
		case "wait":
			page, err = waitFor(s.Value, func() (string, error) { return c.call("observe", map[string]any{"full": true}) })
			if err != nil {
				return err
			}
			continue
		case "press":
			_, err = c.call("press", map[string]any{"key": s.Value})
		default:
			id, ferr := roteTarget(page, s)
			if ferr != nil {
				return ferr
			}
			tool := map[string]string{"fill": "fill", "set": "set_value", "select": "select", "click": "click"}[s.Do]
			args := map[string]any{"target": id}
			if s.Do != "click" {
				args["value"] = s.Value
			}
			_, err = c.call(tool, args)
		}
		if err != nil {
			return err
		}
		if page, err = c.call("observe", map[string]any{"full": true}); err != nil {
			return err
		}
	}
	_, err := c.call("done", map[string]any{"reason": "the task is done"})
	return err
}

// drivePlaywright does steps through @playwright/mcp's tools, reading
// each ref from a snapshot taken after the step before.
func drivePlaywright(c *client, base string, steps []Step) error {
	snap := ""
	for _, s := range steps {
		var err error
		switch s.Do {
		case "open":
			_, err = c.call("browser_navigate", map[string]any{"url": base + s.Value})
		case "wait":
			snap, err = waitFor(s.Value, func() (string, error) { return c.call("browser_snapshot", map[string]any{}) })
			if err != nil {
				return err
			}
			continue
		case "press":
			_, err = c.call("browser_press_key", map[string]any{"key": s.Value})
		default:
			ref, ferr := playwrightTarget(snap, s)
			if ferr != nil {
				return ferr
			}
			args := map[string]any{"element": s.Name, "target": ref}
			tool := "browser_click"
			switch s.Do {
			case "fill", "set":
				tool, args["text"] = "browser_type", s.Value
			case "select":
				tool, args["values"] = "browser_select_option", []string{s.Value}
			}
			_, err = c.call(tool, args)
		}
		if err != nil {
			return err
		}
		if snap, err = c.call("browser_snapshot", map[string]any{}); err != nil {
			return err
		}
	}
	return nil
}

// waitFor looks until text shows, for up to ten seconds.
func waitFor(text string, look func() (string, error)) (string, error) {
	deadline := time.Now().Add(10 * time.Second)
	for {
		page, err := look()
		if err != nil || strings.Contains(page, text) {
			return page, err
		}
		if time.Now().After(deadline) {
			return "", fmt.Errorf("%q did not show in 10s:\n%.2000s", text, page)
		}
		time.Sleep(200 * time.Millisecond)
	}
}

// from returns the lines of page from the first that holds near (all of
// them without near).
func from(page, near string) ([]string, error) {
	lines := strings.Split(page, "\n")
	if near == "" {
		return lines, nil
	}
	for i, l := range lines {
		if strings.Contains(l, near) {
			return lines[i:], nil
		}
	}
	return nil, fmt.Errorf("no %q on the page:\n%.3000s", near, page)
}

// roteTarget finds the id of s's control on a page rote mcp browser
// rendered: its line reads `ID ROLE "NAME"`.
func roteTarget(page string, s Step) (string, error) {
	lines, err := from(page, s.Near)
	if err != nil {
		return "", err
	}
	role := regexp.QuoteMeta(s.Role)
	if s.Role == "" {
		role = `\S+`
	}
	re := regexp.MustCompile(`^\s*(\S+) ` + role + ` "` + regexp.QuoteMeta(s.Name) + `"`)
	for _, l := range lines {
		if m := re.FindStringSubmatch(l); m != nil {
			return m[1], nil
		}
	}
	return "", fmt.Errorf("no %s %q on the page:\n%.3000s", s.Role, s.Name, page)
}

// playwrightTarget finds the ref of s's control in a @playwright/mcp
// snapshot: its line reads `- ROLE "NAME" ... [ref=REF]`, or with no name
// for a control whose label is not tied to it (the s.PWNth such).
func playwrightTarget(snap string, s Step) (string, error) {
	lines, err := from(snap, s.Near)
	if err != nil {
		return "", err
	}
	role := s.Role
	if s.PWRole != "" {
		role = s.PWRole
	}
	quoted := regexp.QuoteMeta(role)
	if role == "" {
		quoted = `[a-z]+`
	}
	name := ` "` + regexp.QuoteMeta(s.Name) + `"`
	if s.PWUnnamed {
		name = ""
	}
	re := regexp.MustCompile(`- ` + quoted + name + `(?: \[[a-z]+(?:=[^\]]*)?\])*? \[ref=([^\]]+)\]`)
	n := 0
	for _, l := range lines {
		if m := re.FindStringSubmatch(l); m != nil {
			if n == s.PWNth {
				return m[1], nil
			}
			n++
		}
	}
	return "", fmt.Errorf("no %s %q in the snapshot:\n%.3000s", role, s.Name, snap)
}

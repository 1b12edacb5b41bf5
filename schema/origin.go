package schema

import (
	"errors"
	"net/url"
	"slices"
	"strings"
)

// A browser session may load pages only over http and https (and the
// empty page it starts on), and, when it is confined, only from its
// origins: a replay from its playbook's, an agent from its task's start
// URL's. file:, chrome:, view-source:, javascript:, data: and every
// other scheme are refused before anything is dispatched, and so is an
// address that parses one way here and another in the browser.

// Origin is u's origin as a browser compares them: scheme://host[:port],
// lower case, without a default port. It is "" for a URL that has none
// (not http or https, or no host).
func Origin(u *url.URL) string {
	scheme := strings.ToLower(u.Scheme)
	if (scheme != "http" && scheme != "https") || u.Hostname() == "" {
		return ""
	}
	host, port := strings.ToLower(u.Hostname()), u.Port()
	if (scheme == "http" && port == "80") || (scheme == "https" && port == "443") {
		port = ""
	}
	if strings.Contains(host, ":") {
		host = "[" + host + "]"
	}
	if port != "" {
		host += ":" + port
	}
	return scheme + "://" + host
}

// ParseOrigin reads an origin as a playbook or a request declares it
// (http://host:port, nothing after), normalised as Origin gives it.
func ParseOrigin(s string) (string, error) {
	u, err := url.Parse(s)
	if err != nil || Origin(u) == "" || (u.Path != "" && u.Path != "/") || u.RawQuery != "" || u.Fragment != "" || u.User != nil {
		return "", Errorf(CodeInvalid, "origin %q: want scheme://host[:port] over http or https", s)
	}
	return Origin(u), nil
}

// CheckNavigation returns raw parsed when a session confined to origins
// may load it: an absolute http or https URL whose origin is one of
// origins (any, when origins is empty), or about:blank. Anything else is
// an *Error with CodeOutOfOrigin, whose message names the scheme or
// origin and never the rest of the address (which may hold a secret).
func CheckNavigation(raw string, origins []string) (*url.URL, error) {
	if raw == "about:blank" {
		return &url.URL{Scheme: "about", Opaque: "blank"}, nil
	}
	// A browser drops tabs and newlines and reads a backslash as a slash;
	// this parser does neither, so such an address could go elsewhere
	// than it is checked to go.
	if strings.ContainsAny(raw, "\\\t\r\n") || strings.ContainsFunc(raw, func(r rune) bool { return r < 0x20 || r == 0x7f }) {
		return nil, Errorf(CodeOutOfOrigin, "the address has a backslash or a control character, which a browser reads otherwise than it is checked")
	}
	u, err := url.Parse(raw)
	if err != nil {
		return nil, Errorf(CodeOutOfOrigin, "the address does not parse: %v", errors.Unwrap(err))
	}
	o := Origin(u)
	if u.Scheme == "" {
		return nil, Errorf(CodeOutOfOrigin, "the address is relative or has no scheme: want an absolute http:// or https:// address")
	}
	if o == "" || u.User != nil {
		return nil, Errorf(CodeOutOfOrigin, "a %q address: only http and https pages, with a host and no credentials in the address, may be loaded", Clip(u.Scheme, 20))
	}
	if len(origins) > 0 && !slices.Contains(origins, o) {
		return nil, Errorf(CodeOutOfOrigin, "a page on %s, outside the origins the session may visit (%s)", o, strings.Join(origins, ", "))
	}
	return u, nil
}

// URLArg is the tool argument that says where a tool goes (an MCP
// browser server's navigate, a fetch): an MCP replay checks it as a
// browser session checks a page load, with CheckNavigation. A relative
// address is refused there too: servers read it differently
// (@playwright/mcp takes /host:port/x for https://host:port/x), so where
// it goes cannot be checked.
const URLArg = "url"

// LiteralOrigin is the origin of the absolute http or https address s
// starts with, before any template reference; "" when the origin itself
// is templated or s is no such address.
func LiteralOrigin(s string) string {
	if i := strings.Index(s, "{{"); i >= 0 {
		s = s[:i]
		if !strings.Contains(strings.TrimPrefix(strings.TrimPrefix(s, "https://"), "http://"), "/") {
			return "" // a reference inside the host or the port
		}
	}
	u, err := url.Parse(s)
	if err != nil {
		return ""
	}
	return Origin(u)
}

// MCPOrigins are the origins an MCP replay of p may send a tool to by its
// url argument: p.Origins and the origins its steps' url arguments name
// literally. Empty means the playbook names none (every address comes
// from a parameter), and only the scheme is checked.
func (p *Playbook) MCPOrigins() []string {
	out := slices.Clone(p.Origins)
	for _, s := range p.Steps {
		raw, _ := s.Args[URLArg].(string)
		if o := LiteralOrigin(raw); o != "" && !slices.Contains(out, o) {
			out = append(out, o)
		}
	}
	return out
}

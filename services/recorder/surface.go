package recorder

import (
	"encoding/json"

	"github.com/rote-agent/rote/schema"
)

// surface follows what a session reveals of its server: its name,
// version and protocol (initialize, server/discover) and its tools
// (tools/list, page by page). The recorder's Session keeps one to
// fingerprint the environment; the interceptor keeps one to know which
// playbooks to offer.
type surface struct {
	requests map[string]pendingMeta // client initialize and tools/list requests
	server   serverInfo
	tools    []schema.ToolSpec // the last complete tools/list
	listing  []schema.ToolSpec // a tools/list being paged through
	client   []string          // of schema.ClientCapabilities, what the client's initialize declared
}

type pendingMeta struct {
	method string
	cursor bool // a tools/list continuation page
}

type serverInfo struct {
	name, version, protocol string
}

type implementer struct {
	Name    string `json:"name"`
	Version string `json:"version"`
}

func newSurface() surface { return surface{requests: map[string]pendingMeta{}} }

// request notes a client request that reveals the surface.
func (s *surface) request(m message) {
	if m.method != "initialize" && m.method != "server/discover" && m.method != "tools/list" {
		return
	}
	var p struct {
		Cursor *string `json:"cursor"`
		Meta   struct {
			ProtocolVersion string `json:"io.modelcontextprotocol/protocolVersion"`
		} `json:"_meta"`
		Capabilities map[string]json.RawMessage `json:"capabilities"`
	}
	_ = json.Unmarshal(m.params, &p)  // absent or malformed params: a first page
	if p.Meta.ProtocolVersion != "" { // the stateless protocol names its version on every request
		s.server.protocol = p.Meta.ProtocolVersion
	}
	if m.method == "initialize" {
		s.client = nil
		for _, c := range schema.ClientCapabilities {
			if v, ok := p.Capabilities[c]; ok && string(v) != "null" {
				s.client = append(s.client, c)
			}
		}
	}
	s.requests[m.idKey()] = pendingMeta{method: m.method, cursor: p.Cursor != nil}
}

// response reads a server response to one of those requests. It returns
// the request's method ("" for a response to anything else) and whether
// the response completed a tools/list.
func (s *surface) response(m message) (listed bool, method string) {
	key := m.idKey()
	req, ok := s.requests[key]
	if !ok {
		return false, ""
	}
	delete(s.requests, key)
	if len(m.err) > 0 {
		return false, req.method
	}
	// initialize names the server in its result; the stateless protocol
	// (server/discover) names it in the _meta of every result.
	var info struct {
		ProtocolVersion string       `json:"protocolVersion"`
		ServerInfo      *implementer `json:"serverInfo"`
		Meta            struct {
			ServerInfo *implementer `json:"io.modelcontextprotocol/serverInfo"`
		} `json:"_meta"`
	}
	if json.Unmarshal(m.result, &info) == nil {
		for _, impl := range []*implementer{info.ServerInfo, info.Meta.ServerInfo} {
			if impl != nil {
				s.server.name, s.server.version = impl.Name, impl.Version
			}
		}
		if info.ProtocolVersion != "" {
			s.server.protocol = info.ProtocolVersion
		}
	}
	if req.method != "tools/list" {
		return false, req.method
	}
	var r struct {
		Tools      []schema.ToolSpec `json:"tools"`
		NextCursor string            `json:"nextCursor"`
	}
	if json.Unmarshal(m.result, &r) != nil {
		return false, req.method
	}
	if !req.cursor {
		s.listing = nil
	}
	s.listing = append(s.listing, r.Tools...)
	if r.NextCursor != "" {
		return false, req.method
	}
	s.tools, s.listing = s.listing, nil
	return true, req.method
}

// environment is the server's environment as far as the session has
// shown it, for target.
func (s *surface) environment(target string) schema.Environment {
	return schema.MCPEnvironment(s.server.name, s.server.version, target, s.tools)
}

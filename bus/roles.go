package bus

import (
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"maps"
	"slices"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/rote-agent/rote/schema"
)

// A service run alone (rote serve --role NAME) connects as the NATS user
// of its role and holds only what that role needs: it may publish the run
// events its role writes and nothing else, write playbooks only when its
// role promotes or patches them, call and serve Rote's requests, and read
// the log and the store; no role user may create, update, delete or purge
// a stream. Its events are signed with its role's key, and a reader
// refuses an event of a kind its signer's role does not write (a
// perception process cannot add a passing verify).
//
// A role's password is derived from the password of user "rote"
// (RolePassword), so whoever holds that one (the embedded server's owner,
// deploy/k8s's planner) knows every role's, and the embedded server needs
// no file per role.

// roleGrant is what one role user may write.
type roleGrant struct {
	kinds     []string // the run event kinds it publishes
	playbooks bool     // it writes the playbook store
	sites     bool     // it writes site memory
	blobs     bool     // it writes the blob store
	tasks     bool     // it claims tasks from rote.tasks
}

// roleGrants are the role users: one per service.
var roleGrants = map[string]roleGrant{
	"perception": {kinds: []string{schema.KindObserved}},
	"actuator":   {kinds: []string{schema.KindActions}},
	"matcher":    {},
	"distiller":  {kinds: []string{schema.KindPlaybook}, playbooks: true, sites: true},
	// The planner claims tasks and runs the agent and the replay executor:
	// it opens and closes runs, calls MCP servers, asks the model, checks
	// expects and verify gates, and patches playbooks.
	"planner": {kinds: []string{schema.KindStarted, schema.KindFinished, schema.KindCalls, schema.KindLLM,
		schema.KindPlaybook, schema.KindExpect, schema.KindVerify, schema.KindRejected, schema.KindMemory}, playbooks: true, blobs: true, tasks: true},
}

// Roles are the role users' names, sorted.
func Roles() []string { return slices.Sorted(maps.Keys(roleGrants)) }

// IsRole reports whether name is a role user's name.
func IsRole(name string) bool {
	_, ok := roleGrants[name]
	return ok
}

// mayWrite reports whether signer (user rote, or a role) writes events
// of kind.
func mayWrite(signer, kind string) bool {
	if signer == roteUser {
		return true
	}
	g, ok := roleGrants[signer]
	return ok && slices.Contains(g.kinds, kind)
}

// roleLabel separates a role's password from the password of user rote
// it is derived from.
const roleLabel = "rote bus user "

// RolePassword is the password of role user role on a bus whose user
// "rote" has password rote: the hex HMAC-SHA256, under rote, of
// "rote bus user ROLE". In a shell:
//
//	printf 'rote bus user %s' ROLE | openssl dgst -sha256 -hmac "$ROTE_NATS_PASSWORD"
func RolePassword(rote, role string) string {
	mac := hmac.New(sha256.New, []byte(rote))
	mac.Write([]byte(roleLabel + role))
	return hex.EncodeToString(mac.Sum(nil))
}

// inboxPrefix is where the replies to a Rote process's requests go:
// _ROTE_INBOX.USER, so that a role reads only its own, and a task
// publisher (user client, which reads _INBOX.>) none of Rote's.
func inboxPrefix(user string) string { return "_ROTE_INBOX." + user }

// RolePermissions are the NATS permissions of role user role (nil for
// an unknown role): the embedded server gives them, and deploy/k8s's
// configuration must give the same. A role may call every service and
// answer its own service's requests, read its own replies, and reach
// JetStream only through the gate (gate.go), which lets it read the log
// and the stores with consumers of its own and write what its grant
// says; the planner alone claims (and acknowledges) tasks, and writes
// the blobs' chunks itself. Nothing else: no $JS.API call of its own, no
// stream or other consumer created, changed or deleted, no other
// service's requests read or answered.
func RolePermissions(role string) *server.Permissions {
	g, ok := roleGrants[role]
	if !ok {
		return nil
	}
	allow := []string{
		"rote.perception.>", "rote.actuator.>", "rote.planner.>", "rote.matcher.>", "rote.distiller.>",
		inboxPrefix("*") + ".>", APIPrefix(role) + ">", "$JS.FC.>",
	}
	if g.tasks {
		allow = append(allow, "$JS.ACK."+StreamTasks+".>")
	}
	if g.blobs {
		allow = append(allow, "$O."+BucketBlobs+".>")
	}
	return &server.Permissions{
		Publish:   &server.SubjectPermission{Allow: allow},
		Subscribe: &server.SubjectPermission{Allow: []string{"rote." + role + ".>", inboxPrefix(role) + ".>", "$SRV.>"}},
	}
}

// roleUsers are the embedded server's role users, their passwords
// derived from rote.
func roleUsers(rote string) []*server.User {
	var out []*server.User
	for _, role := range Roles() {
		out = append(out, &server.User{Username: role, Password: RolePassword(rote, role), Permissions: RolePermissions(role)})
	}
	return out
}

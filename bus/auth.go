package bus

import (
	"encoding/hex"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/nats-io/nats-server/v2/server"
	"github.com/rote-agent/rote/schema"
)

// The embedded server admits only clients that hold a password from the
// data directory, which only its owner can read (0700, the files 0600):
//
//   - user "rote" (bus.token) is Rote's own processes. They may publish
//     and subscribe to anything but the JetStream calls that delete or
//     purge a stream or a message: the run log and the playbook store are
//     append-only by permission, not only by stream flags.
//
//   - user "client" (client.token) is for programs that hand Rote tasks:
//     they may publish on rote.tasks and read the run log to hear the
//     outcome, nothing else (no event, playbook or blob written).
//
//   - a user per role (roles.go), for `rote serve --role NAME` joining
//     another process's server: that role's permissions only.
//
// Another local user, or any process that cannot read the directory,
// cannot connect at all.
const (
	roteUser    = "rote"
	clientUser  = "client"
	roteToken   = "bus.token"
	clientToken = "client.token"
)

// tokens returns the data directory's two passwords, creating them on
// first use.
func tokens(dir string) (rote, client string, err error) {
	if rote, err = token(filepath.Join(dir, roteToken)); err != nil {
		return "", "", err
	}
	client, err = token(filepath.Join(dir, clientToken))
	return rote, client, err
}

// token is the password in path (SecretFile), as hex.
func token(path string) (string, error) {
	key, err := SecretFile(path)
	if err != nil {
		return "", fmt.Errorf("bus: %w", err)
	}
	return hex.EncodeToString(key), nil
}

// ReadToken returns the password the embedded server over dir gives
// user ("rote", "client" or a role), for a process that joins it with
// --nats: nats://USER:TOKEN@host:port.
func ReadToken(dir, user string) (string, error) {
	name := roteToken
	switch {
	case user == clientUser:
		name = clientToken
	case user != roteUser && !IsRole(user):
		return "", fmt.Errorf("bus: no user %q: want rote, client or a role (%s)", user, strings.Join(Roles(), ", "))
	}
	raw, err := readPrivate(filepath.Join(dir, name))
	if err != nil {
		return "", fmt.Errorf("bus: %w", err)
	}
	token := strings.TrimSpace(string(raw))
	if IsRole(user) {
		return RolePassword(token, user), nil
	}
	return token, nil
}

// users are the embedded server's users, all of one account: rote,
// client and a user per role (roleUsers).
func users(rote, client string) []*server.User {
	return append([]*server.User{
		{Username: roteUser, Password: rote, Permissions: &server.Permissions{
			Publish: &server.SubjectPermission{Allow: []string{">"}, Deny: []string{
				"$JS.API.STREAM.DELETE.>", "$JS.API.STREAM.PURGE.>", "$JS.API.STREAM.MSG.DELETE.>",
			}},
			Subscribe: &server.SubjectPermission{Allow: []string{">"}},
		}},
		{Username: clientUser, Password: client, Permissions: ClientPermissions()},
	}, roleUsers(rote)...)
}

// ClientPermissions are the NATS permissions of user client (programs
// that hand Rote tasks): the embedded server gives them, and
// deploy/k8s's configuration must give the same. It may publish on
// rote.tasks and read the run log through the gate (gate.go) with
// consumers of its own, to hear the outcome: nothing that writes or
// deletes, no $JS.API call of its own.
func ClientPermissions() *server.Permissions {
	return &server.Permissions{
		Publish:   &server.SubjectPermission{Allow: []string{schema.SubjectTasks, APIPrefix(clientUser) + ">"}},
		Subscribe: &server.SubjectPermission{Allow: []string{"_INBOX.>"}},
	}
}

package bus

import (
	"context"
	"crypto/ed25519"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"maps"
	"strconv"
	"strings"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/rote-agent/rote/schema"
)

// Every event Rote publishes is signed: HeaderSignature holds
// "SIGNER:HEX", the Ed25519 signature of its subject, type and payload by
// SIGNER, which is user "rote" or a role user (see roles.go). A reader
// skips an event whose signature is missing, does not verify, names a
// signer it has no key for, or comes from a role that does not write
// events of its kind, as it skips a message that does not decode, and an
// audit of its run reports it: a process that can publish on the run log
// but does not hold the key (another tenant of an external NATS, a client
// given too wide permissions) cannot add a passing verify or a second
// run.finished to a run, nor copy a signed event into another run, since
// the subject is signed too; and a role's process, which holds only its
// own key, cannot write another role's events.
//
// A signer's key is derived from its password: user "rote"'s is the
// embedded server's, or the one in the URL of an external server when its
// user is "rote" (deploy/k8s's planner); a role's is RolePassword. A
// process that knows the password of user "rote" derives every signer's
// public key itself, and writes them into ROTE_RUNS's metadata for the
// role processes, which may read but not change a stream. Without any
// password the key is Config.SigningKey ($ROTE_SIGNING_KEY), for user
// "rote". A bus with neither signs nothing and checks nothing, and says
// so (RunLog.Signed).
const HeaderSignature = "Rote-Sig"

// ROTE_RUNS's metadata: signedFromKey is the stream sequence from which
// every event is signed, so that the events of a store that Rote used
// before it signed them (or signed them another way) stay readable and
// no one can add a message before that point; keyPrefix+SIGNER is a
// signer's public key, in hex.
const (
	signedFromKey = "rote-signed-v2-from"
	keyPrefix     = "rote-key-"
)

// signingLabel separates a signing key from the password it is derived
// from.
const signingLabel = "rote run log signing v2"

// Why a reader skipped a message.
var (
	errUnsigned      = schema.Errorf(schema.CodeInvalid, "an unsigned event where every event is signed: written by a process without the bus's signing key")
	errBadSignature  = schema.Errorf(schema.CodeInvalid, "the event's signature does not match its subject, type and payload: forged, altered or copied from another run")
	errUnknownSigner = schema.Errorf(schema.CodeInvalid, "the event is signed by no user of this bus")
	errWrongRole     = schema.Errorf(schema.CodeInvalid, "the event's signer is a role that does not write events of its kind")
)

// signer signs the events one client publishes.
type signer struct {
	name string // roteUser or a role
	key  ed25519.PrivateKey
}

// newSigner is name's signer with the key derived from secret.
func newSigner(name string, secret []byte) *signer {
	mac := hmac.New(sha256.New, secret)
	mac.Write([]byte(signingLabel))
	return &signer{name: name, key: ed25519.NewKeyFromSeed(mac.Sum(nil))}
}

func (s *signer) public() ed25519.PublicKey { return s.key.Public().(ed25519.PublicKey) }

// user is the NATS user this keyring's client signs as: roteUser, a role,
// or "" when it signs nothing.
func (k *keyring) user() string {
	if k.own == nil {
		return ""
	}
	return k.own.name
}

// signed is what a signature covers: an event's subject, type and
// payload.
func signed(subject, typ string, data []byte) []byte {
	b := make([]byte, 0, len(subject)+len(typ)+len(data)+2)
	b = append(b, subject...)
	b = append(b, 0)
	b = append(b, typ...)
	b = append(b, 0)
	return append(b, data...)
}

// sign returns the HeaderSignature of an event.
func (s *signer) sign(subject, typ string, data []byte) string {
	return s.name + ":" + hex.EncodeToString(ed25519.Sign(s.key, signed(subject, typ, data)))
}

// keyring is what a process knows of a bus's signers.
type keyring struct {
	own  *signer                      // nil: this client signs nothing
	keys map[string]ed25519.PublicKey // the signers it checks; nil checks nothing
	// authority: keys were derived from user rote's password, and are
	// written into ROTE_RUNS's metadata for role processes.
	authority bool
	// signedFrom is the stream sequence from which every event is signed.
	signedFrom uint64
}

// passwordKeyring is the keyring of a client connected as user (rote or
// a role) that knows user rote's password, rote, or only its own,
// password.
func passwordKeyring(user, password, rote string) *keyring {
	k := &keyring{own: newSigner(user, []byte(password))}
	if rote == "" {
		return k // the role's keys come from the store (keysFrom)
	}
	k.authority = true
	k.keys = map[string]ed25519.PublicKey{roteUser: newSigner(roteUser, []byte(rote)).public()}
	for _, role := range Roles() {
		k.keys[role] = newSigner(role, []byte(RolePassword(rote, role))).public()
	}
	return k
}

// check says why msg, stored at seq, is not a signed event of this bus
// that its signer may write, or nil. Without keys nothing is checked.
func (k *keyring) check(seq uint64, msg jetstream.Msg) error {
	if k.keys == nil {
		return nil
	}
	got := msg.Headers().Get(HeaderSignature)
	if got == "" {
		if seq < k.signedFrom {
			return nil // written before this store's events were signed
		}
		return errUnsigned
	}
	name, sigHex, _ := strings.Cut(got, ":")
	pub, ok := k.keys[name]
	if !ok {
		return errUnknownSigner
	}
	sig, err := hex.DecodeString(sigHex)
	if err != nil || !ed25519.Verify(pub, signed(msg.Subject(), msg.Headers().Get(HeaderEventType), msg.Data()), sig) {
		return errBadSignature
	}
	if kind := msg.Subject()[strings.LastIndexByte(msg.Subject(), '.')+1:]; !mayWrite(name, kind) {
		return errWrongRole
	}
	return nil
}

// runsMetadata returns the metadata ROTE_RUNS keeps across updates, and
// takes from it the sequence from which its events are signed. A client
// that signs marks a store that has no mark yet at its next sequence; one
// that does not keeps an existing mark, so that opening a store without
// the key never makes earlier messages pass unsigned. An authority writes
// its signers' public keys.
func runsMetadata(ctx context.Context, js jetstream.JetStream, k *keyring) (map[string]string, *jetstream.StreamInfo, error) {
	meta := map[string]string{}
	var next uint64 = 1
	var info *jetstream.StreamInfo
	stream, err := js.Stream(ctx, StreamRuns)
	switch {
	case errors.Is(err, jetstream.ErrStreamNotFound):
	case err != nil:
		return nil, nil, fmt.Errorf("bus: %s: %w", StreamRuns, err)
	default:
		info = stream.CachedInfo()
		maps.Copy(meta, info.Config.Metadata)
		next = info.State.LastSeq + 1
	}
	if _, ok := meta[signedFromKey]; !ok && k.own != nil {
		meta[signedFromKey] = strconv.FormatUint(next, 10)
	}
	if k.authority {
		for name, pub := range k.keys {
			meta[keyPrefix+name] = hex.EncodeToString(pub)
		}
	}
	return meta, info, k.markFrom(meta)
}

// markFrom takes the signed-from mark from a stream's metadata (0 for
// none).
func (k *keyring) markFrom(meta map[string]string) error {
	v, ok := meta[signedFromKey]
	if !ok {
		k.signedFrom = 0
		return nil
	}
	from, err := strconv.ParseUint(v, 10, 64)
	if err != nil {
		return fmt.Errorf("bus: %s metadata %s=%q: %w", StreamRuns, signedFromKey, v, err)
	}
	k.signedFrom = from
	return nil
}

// keysFrom reads the signers' public keys from ROTE_RUNS's metadata, for
// a role process, which does not derive them.
func (k *keyring) keysFrom(meta map[string]string) error {
	k.keys = map[string]ed25519.PublicKey{}
	for name, v := range meta {
		signer, ok := strings.CutPrefix(name, keyPrefix)
		if !ok {
			continue
		}
		pub, err := hex.DecodeString(v)
		if err != nil || len(pub) != ed25519.PublicKeySize {
			return fmt.Errorf("bus: %s metadata %s is no public key", StreamRuns, name)
		}
		k.keys[signer] = pub
	}
	if len(k.keys) == 0 {
		return fmt.Errorf("bus: %s names no signing keys: open the store once as user rote (rote serve --role planner, or any rote command on its data directory) before its role processes", StreamRuns)
	}
	return nil
}

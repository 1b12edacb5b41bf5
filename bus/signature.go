package bus

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"net/url"
	"strconv"

	"github.com/nats-io/nats.go/jetstream"
	"github.com/rote-agent/rote/schema"
)

// Every event Rote publishes is signed: HeaderSignature holds the hex
// HMAC-SHA256, under the bus's signing key, of its subject, type and
// payload. A reader that holds the key skips an event whose signature is
// missing or does not match, as it skips a message that does not decode,
// and an audit of its run reports it: a process that can publish on the
// run log but does not hold the key (another tenant of an external NATS,
// a client given too wide permissions) cannot add a passing verify or a
// second run.finished to a run, nor copy a signed event into another
// run, since the subject is signed too.
//
// The key is derived from the password of user "rote": the embedded
// server's, or the one in the URL of an external server when its user is
// "rote" (deploy/k8s). Without one it is Config.SigningKey
// ($ROTE_SIGNING_KEY). A bus with neither signs nothing and checks
// nothing, and says so (RunLog.Signed).
const HeaderSignature = "Rote-Sig"

// signedFromKey, in ROTE_RUNS's metadata, is the stream sequence from
// which every event is signed: the events of a store that Rote used
// before it signed them stay readable, and no one can add a message
// before that point.
const signedFromKey = "rote-signed-from"

// signingLabel separates the signing key from the password it is
// derived from.
const signingLabel = "rote run log signing v1"

// errUnsigned and errBadSignature are why a reader skipped a message.
var (
	errUnsigned     = schema.Errorf(schema.CodeInvalid, "an unsigned event where every event is signed: written by a process without the bus's signing key")
	errBadSignature = schema.Errorf(schema.CodeInvalid, "the event's signature does not match its subject, type and payload: forged, altered or copied from another run")
)

// derivedSigningKey is the signing key of a bus whose user "rote" has
// password.
func derivedSigningKey(password string) []byte {
	mac := hmac.New(sha256.New, []byte(password))
	mac.Write([]byte(signingLabel))
	return mac.Sum(nil)
}

// urlSigningKey is the key derived from the password in raw when its
// user is "rote", else nil.
func urlSigningKey(raw string) []byte {
	u, err := url.Parse(raw)
	if err != nil || u.User == nil || u.User.Username() != roteUser {
		return nil
	}
	if p, ok := u.User.Password(); ok && p != "" {
		return derivedSigningKey(p)
	}
	return nil
}

// signature is the hex HMAC of an event's subject, type and payload.
func signature(key []byte, subject, typ string, data []byte) string {
	mac := hmac.New(sha256.New, key)
	mac.Write([]byte(subject))
	mac.Write([]byte{0})
	mac.Write([]byte(typ))
	mac.Write([]byte{0})
	mac.Write(data)
	return hex.EncodeToString(mac.Sum(nil))
}

// checkSignature says why msg, stored at seq, is not a signed event of
// this bus, or nil. Without a key nothing is checked.
func (l *RunLog) checkSignature(seq uint64, msg jetstream.Msg) error {
	if l.key == nil {
		return nil
	}
	got := msg.Headers().Get(HeaderSignature)
	if got == "" {
		if seq < l.signedFrom {
			return nil // written before this store's events were signed
		}
		return errUnsigned
	}
	want := signature(l.key, msg.Subject(), msg.Headers().Get(HeaderEventType), msg.Data())
	if !hmac.Equal([]byte(got), []byte(want)) {
		return errBadSignature
	}
	return nil
}

// signedFrom returns the metadata ROTE_RUNS keeps across updates (the
// sequence from which its events are signed) and that sequence. A bus
// that signs marks a store that has no mark yet at its next sequence; a
// bus that does not keeps an existing mark, so that opening a store
// without the key never makes earlier messages pass unsigned.
func signedFrom(ctx context.Context, js jetstream.JetStream, signs bool) (map[string]string, uint64, error) {
	var next uint64 = 1
	stream, err := js.Stream(ctx, StreamRuns)
	switch {
	case errors.Is(err, jetstream.ErrStreamNotFound):
	case err != nil:
		return nil, 0, fmt.Errorf("bus: %s: %w", StreamRuns, err)
	default:
		info := stream.CachedInfo()
		if v, ok := info.Config.Metadata[signedFromKey]; ok {
			from, err := strconv.ParseUint(v, 10, 64)
			if err != nil {
				return nil, 0, fmt.Errorf("bus: %s metadata %s=%q: %w", StreamRuns, signedFromKey, v, err)
			}
			return map[string]string{signedFromKey: v}, from, nil
		}
		next = info.State.LastSeq + 1
	}
	if !signs {
		return nil, 0, nil
	}
	return map[string]string{signedFromKey: strconv.FormatUint(next, 10)}, next, nil
}

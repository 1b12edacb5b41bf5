package schema

import (
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// RawJSON holds opaque JSON bytes: tool arguments and results. It is
// msgpack binary on the wire and inline JSON when an event is printed as
// JSON; bytes that are not valid JSON print as a JSON string.
type RawJSON []byte

// MarshalJSON returns r itself when it is valid JSON, else r quoted.
func (r RawJSON) MarshalJSON() ([]byte, error) {
	if len(r) == 0 {
		return []byte("null"), nil
	}
	if json.Valid(r) {
		return r, nil
	}
	return json.Marshal(string(r))
}

// UnmarshalJSON stores a copy of data.
func (r *RawJSON) UnmarshalJSON(data []byte) error {
	*r = append((*r)[:0], data...)
	return nil
}

// RawText holds opaque bytes that are usually text, such as a line the
// recorder could not parse. It is msgpack binary on the wire; as JSON it
// is a string, or "base64:..." when the bytes are not valid UTF-8.
type RawText []byte

// MarshalJSON returns the bytes as a JSON string.
func (r RawText) MarshalJSON() ([]byte, error) {
	if utf8.Valid(r) {
		return json.Marshal(string(r))
	}
	return json.Marshal("base64:" + base64.StdEncoding.EncodeToString(r))
}

// InlineLimit is the largest payload an event carries inline. Anything
// larger is stored in the blob store and referenced by digest.
const InlineLimit = 64 << 10

// Digest returns the content address of b: "sha256:" and 64 hex digits.
func Digest(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// ValidateDigest returns an *Error with CodeInvalid unless d has the form
// Digest returns.
func ValidateDigest(d string) error {
	hexPart, ok := strings.CutPrefix(d, "sha256:")
	if !ok || len(hexPart) != 64 {
		return Errorf(CodeInvalid, "digest %q: want sha256:<64 hex digits>", d)
	}
	if _, err := hex.DecodeString(hexPart); err != nil {
		return Errorf(CodeInvalid, "digest %q: want sha256:<64 hex digits>", d)
	}
	return nil
}

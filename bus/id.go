package bus

import (
	"crypto/rand"
	"encoding/binary"
	"time"
)

// crockford is Crockford's base32 alphabet: no I, L, O or U.
const crockford = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"

// NewID returns a 26-character id that sorts by creation time: 48 bits of
// Unix milliseconds followed by 80 random bits, in Crockford base32. Ids
// are valid run ids and subject tokens.
func NewID() string {
	var b [16]byte
	binary.BigEndian.PutUint64(b[:8], uint64(time.Now().UnixMilli())<<16)
	if _, err := rand.Read(b[6:]); err != nil {
		panic("bus: crypto/rand failed: " + err.Error()) // the kernel's CSPRNG does not fail on Linux
	}
	hi := binary.BigEndian.Uint64(b[:8])
	lo := binary.BigEndian.Uint64(b[8:])
	var out [26]byte
	for i := 25; i >= 0; i-- {
		out[i] = crockford[lo&31]
		lo = lo>>5 | hi<<59
		hi >>= 5
	}
	return string(out[:])
}

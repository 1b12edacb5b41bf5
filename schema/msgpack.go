package schema

import (
	"encoding/binary"

	"github.com/vmihailenco/msgpack/v5"
)

// MaxNesting is how deep arrays and maps may nest in a msgpack message
// or a YAML playbook. Rote's own are a few levels deep; a decoder that
// recursed into a million levels would exhaust the stack or the memory
// of whoever reads the message.
const MaxNesting = 64

// DecodeMsgpack decodes data into v after checking, without recursing,
// that it is one well-formed msgpack value nested at most MaxNesting
// deep. Errors are *Error with CodeInvalid (CodeTooLarge for the depth).
func DecodeMsgpack(data []byte, v any) error {
	if err := checkMsgpack(data); err != nil {
		return err
	}
	if err := msgpack.Unmarshal(data, v); err != nil {
		return Errorf(CodeInvalid, "msgpack: %v", err)
	}
	return nil
}

// checkMsgpack walks data's values with a stack of how many items each
// open array or map still holds.
func checkMsgpack(data []byte) error {
	left := []uint64{1}
	i := 0
	read := func(n int) (uint64, bool) {
		if n > len(data)-i {
			return 0, false
		}
		var v uint64
		switch n {
		case 1:
			v = uint64(data[i])
		case 2:
			v = uint64(binary.BigEndian.Uint16(data[i:]))
		case 4:
			v = uint64(binary.BigEndian.Uint32(data[i:]))
		}
		i += n
		return v, true
	}
	for len(left) > 0 {
		top := len(left) - 1
		if left[top] == 0 {
			left = left[:top]
			continue
		}
		left[top]--
		if i >= len(data) {
			return Errorf(CodeInvalid, "msgpack: the message ends inside a value")
		}
		b := data[i]
		i++
		var skip uint64 // bytes of payload after the header
		var items uint64
		container, ok := false, true
		switch {
		case b <= 0x7f, b >= 0xe0, b == 0xc0, b == 0xc2, b == 0xc3:
		case b >= 0x80 && b <= 0x8f:
			container, items = true, 2*uint64(b&0x0f)
		case b >= 0x90 && b <= 0x9f:
			container, items = true, uint64(b&0x0f)
		case b >= 0xa0 && b <= 0xbf:
			skip = uint64(b & 0x1f)
		case b == 0xc4 || b == 0xd9:
			skip, ok = read(1)
		case b == 0xc5 || b == 0xda:
			skip, ok = read(2)
		case b == 0xc6 || b == 0xdb:
			skip, ok = read(4)
		case b == 0xc7, b == 0xc8, b == 0xc9:
			skip, ok = read(1 << (b - 0xc7))
			skip++ // the ext type
		case b == 0xca, b == 0xce, b == 0xd2:
			skip = 4
		case b == 0xcb, b == 0xcf, b == 0xd3:
			skip = 8
		case b == 0xcc, b == 0xd0:
			skip = 1
		case b == 0xcd, b == 0xd1:
			skip = 2
		case b >= 0xd4 && b <= 0xd8:
			skip = 1 + 1<<(b-0xd4)
		case b == 0xdc || b == 0xde:
			items, ok = read(2)
			container = true
		case b == 0xdd || b == 0xdf:
			items, ok = read(4)
			container = true
		default:
			return Errorf(CodeInvalid, "msgpack: byte 0x%02x at %d starts no value", b, i-1)
		}
		if !ok || skip > uint64(len(data)-i) {
			return Errorf(CodeInvalid, "msgpack: the message ends inside a value")
		}
		i += int(skip)
		if container {
			if b == 0xde || b == 0xdf {
				items *= 2
			}
			if len(left) > MaxNesting {
				return Errorf(CodeTooLarge, "msgpack: nested more than %d deep", MaxNesting)
			}
			left = append(left, items)
		}
	}
	return nil
}

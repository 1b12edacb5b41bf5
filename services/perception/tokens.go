package perception

import (
	"sync"
	"unicode/utf8"

	"github.com/tiktoken-go/tokenizer"
)

var (
	codecOnce sync.Once
	codec     tokenizer.Codec
)

// countTokens counts s with the o200k_base BPE (the GPT-4o family's),
// embedded in the binary, so counts need no network.
func countTokens(s string) int {
	codecOnce.Do(func() {
		var err error
		if codec, err = tokenizer.Get(tokenizer.O200kBase); err != nil {
			panic("perception: o200k_base tokenizer: " + err.Error()) // embedded: cannot fail
		}
	})
	n, err := codec.Count(s)
	if err != nil {
		return utf8.RuneCountInString(s) / 4 // not valid UTF-8: the usual estimate
	}
	return n
}

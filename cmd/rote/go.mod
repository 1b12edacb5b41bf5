module github.com/rote-agent/rote/cmd/rote

go 1.26.0

require (
	github.com/chromedp/cdproto v0.160.2
	github.com/chromedp/chromedp v0.23.1
	github.com/modelcontextprotocol/go-sdk v1.8.0
	github.com/nats-io/nats-server/v2 v2.15.2
	github.com/prometheus/client_golang v1.25.0
	github.com/rote-agent/rote/bus v0.0.0
	github.com/rote-agent/rote/chromium v0.0.0
	github.com/rote-agent/rote/schema v0.0.0
	github.com/spf13/cobra v1.10.2
	github.com/tiktoken-go/tokenizer v0.10.0
)

require (
	codeberg.org/go-fonts/liberation v0.5.0 // indirect
	codeberg.org/go-latex/latex v0.2.0 // indirect
	codeberg.org/go-pdf/fpdf v0.11.1 // indirect
	git.sr.ht/~sbinet/gg v0.7.0 // indirect
	github.com/ajstarks/svgo v0.0.0-20211024235047-1546f124cd8b // indirect
	github.com/beorn7/perks v1.0.1 // indirect
	github.com/cespare/xxhash/v2 v2.3.0 // indirect
	github.com/dlclark/regexp2/v2 v2.5.1 // indirect
	github.com/go-json-experiment/json v0.0.0-20260213210345-44df1a37e875 // indirect
	github.com/golang/freetype v0.0.0-20170609003504-e2365dfdc4a0 // indirect
	github.com/google/jsonschema-go v0.4.3 // indirect
	github.com/munnerz/goautoneg v0.0.0-20191010083416-a7dc8b61c822 // indirect
	github.com/nats-io/nats.go v1.55.0 // indirect
	github.com/prometheus/client_model v0.6.3 // indirect
	github.com/prometheus/common v0.72.0 // indirect
	github.com/prometheus/procfs v0.22.0 // indirect
	github.com/sashabaranov/go-openai v1.43.0 // indirect
	github.com/segmentio/asm v1.1.3 // indirect
	github.com/segmentio/encoding v0.5.4 // indirect
	github.com/yosida95/uritemplate/v3 v3.0.2 // indirect
	golang.org/x/image v0.30.0 // indirect
	golang.org/x/oauth2 v0.37.0 // indirect
	golang.org/x/sync v0.24.0 // indirect
	golang.org/x/text v0.43.0 // indirect
	gonum.org/v1/plot v0.17.0 // indirect
	google.golang.org/protobuf v1.36.12 // indirect
)

require (
	github.com/antithesishq/antithesis-sdk-go v0.8.0-default-no-op // indirect
	github.com/goccy/go-yaml v1.19.2 // indirect
	github.com/google/go-tpm v0.9.8 // indirect
	github.com/inconshreveable/mousetrap v1.1.0 // indirect
	github.com/klauspost/compress v1.20.3 // indirect
	github.com/minio/highwayhash v1.0.4 // indirect
	github.com/nats-io/jwt/v2 v2.8.2 // indirect
	github.com/nats-io/nkeys v0.4.16 // indirect
	github.com/nats-io/nuid v1.0.1 // indirect
	github.com/rote-agent/rote/bench v0.0.0
	github.com/rote-agent/rote/portal v0.0.0
	github.com/rote-agent/rote/services/actuator v0.0.0
	github.com/rote-agent/rote/services/distiller v0.0.0
	github.com/rote-agent/rote/services/matcher v0.0.0
	github.com/rote-agent/rote/services/perception v0.0.0
	github.com/rote-agent/rote/services/planner v0.0.0
	github.com/rote-agent/rote/services/recorder v0.0.0
	github.com/rote-agent/rote/services/replay v0.0.0
	github.com/spf13/pflag v1.0.9 // indirect
	github.com/vmihailenco/msgpack/v5 v5.4.1 // indirect
	github.com/vmihailenco/tagparser/v2 v2.0.0 // indirect
	golang.org/x/crypto v0.58.0 // indirect
	golang.org/x/sys v0.49.0 // indirect
	golang.org/x/time v0.16.0 // indirect
)

replace github.com/rote-agent/rote/schema => ../../schema

replace github.com/rote-agent/rote/bus => ../../bus

replace github.com/rote-agent/rote/services/recorder => ../../services/recorder

replace github.com/rote-agent/rote/services/actuator => ../../services/actuator

replace github.com/rote-agent/rote/services/replay => ../../services/replay

replace github.com/rote-agent/rote/services/perception => ../../services/perception

replace github.com/rote-agent/rote/portal => ../../portal

replace github.com/rote-agent/rote/services/planner => ../../services/planner

replace github.com/rote-agent/rote/bench => ../../bench

replace github.com/rote-agent/rote/services/distiller => ../../services/distiller

replace github.com/rote-agent/rote/services/matcher => ../../services/matcher

replace github.com/rote-agent/rote/chromium => ../../chromium

module github.com/rote-agent/rote/services/recorder

go 1.26

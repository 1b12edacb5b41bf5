module github.com/rote-agent/rote/e2e

go 1.26

module github.com/rote-agent/rote/services/matcher

go 1.26

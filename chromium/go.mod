module github.com/rote-agent/rote/chromium

go 1.26.0

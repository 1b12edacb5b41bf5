module github.com/rote-agent/rote/services/distiller

go 1.26

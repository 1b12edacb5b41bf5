package portal

import (
	"embed"
	"mime"
	"net/http"
	"path"
)

//go:embed static
var staticFS embed.FS

// serveStatic serves GET /static/{file}: the stylesheets and the banner
// image. It needs no sign-in, so the login page is styled too. Under the
// renames variant the stylesheets' class and id selectors are renamed to
// match the pages.
func (p *Portal) serveStatic(w http.ResponseWriter, r *http.Request) {
	name := r.PathValue("file")
	body, err := staticFS.ReadFile("static/" + name)
	if err != nil {
		http.NotFound(w, r)
		return
	}
	ext := path.Ext(name)
	if ext == ".css" && p.flags.Renames {
		body = []byte(renameStylesheet(string(body)))
	}
	ctype := mime.TypeByExtension(ext)
	if ctype == "" {
		ctype = "application/octet-stream"
	}
	w.Header().Set("Content-Type", ctype)
	w.Header().Set("Cache-Control", "no-cache")
	_, _ = w.Write(body)
}

package compare

// PortalSite is the fixture portal at base: its pages, signed in, the
// release board among them with and without its cross-site help desk
// frame, and the dashboard again after the board (a frame must not slow
// the pages that follow it).
func PortalSite(base, username, password string) Site {
	return Site{Name: "portal", Base: base,
		SignIn: &SignIn{Path: "/login", UserName: "Username", PassName: "Password", Submit: "Sign in",
			UserField: "input[name=username]", PassField: "input[name=password]", Button: "button[type=submit]", Username: username, Password: password},
		Pages: []Page{
			{"dashboard", "/dashboard"}, {"records", "/records"}, {"record", "/records/R-1001"}, {"record edit", "/records/R-1001/edit"},
			{"vendors", "/vendors"}, {"register vendor", "/vendors/new"}, {"catalog", "/catalog"}, {"catalog search", "/catalog?q=desk"},
			{"product", "/catalog/SKU-001"}, {"inbox", "/inbox"}, {"message", "/inbox/M-01"}, {"settings", "/settings"},
			{"reports", "/reports"}, {"drill", "/drills/101"},
			{"board, no frame", "/board?frame=none"}, {"board, cross-site frame", "/board"}, {"dashboard after the board", "/dashboard"},
		}}
}

// WordPressSite is a WordPress admin at base, signed in as username.
func WordPressSite(base, username, password string) Site {
	return Site{Name: "wordpress", Base: base,
		SignIn: &SignIn{Path: "/wp-login.php", UserName: "Username or Email Address", PassName: "Password", Submit: "Log In",
			UserField: "#user_login", PassField: "#user_pass", Button: "#wp-submit", Username: username, Password: password},
		Pages: []Page{
			{"dashboard", "/wp-admin/"}, {"posts", "/wp-admin/edit.php"}, {"pages", "/wp-admin/edit.php?post_type=page"},
			{"media", "/wp-admin/upload.php"}, {"comments", "/wp-admin/edit-comments.php"}, {"categories", "/wp-admin/edit-tags.php?taxonomy=category"},
			{"users", "/wp-admin/users.php"}, {"profile", "/wp-admin/profile.php"}, {"general settings", "/wp-admin/options-general.php"},
			{"reading settings", "/wp-admin/options-reading.php"}, {"plugins", "/wp-admin/plugins.php"}, {"themes", "/wp-admin/themes.php"},
			{"new post (block editor)", "/wp-admin/post-new.php"},
		}}
}

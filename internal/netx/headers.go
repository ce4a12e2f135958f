package netx

import "net/http"

// ContentSecurityPolicy is the policy of every answer: scripts, styles,
// images and requests from this server only (no inline script or style
// attribute in markup, no eval), no plugins, and no page of another site
// may frame ours (frame-ancestors 'none': no clickjacking).
const ContentSecurityPolicy = "default-src 'self'; script-src 'self'; style-src 'self'; img-src 'self' data:; " +
	"connect-src 'self'; font-src 'self'; object-src 'none'; base-uri 'none'; form-action 'self'; frame-ancestors 'none'"

// SecurityHeaders sets the headers every answer of the server carries: the
// Content-Security-Policy above, with the older X-Frame-Options for
// browsers that do not read frame-ancestors; no guessing of content types;
// no address of ours sent to other sites; the page in a browsing context
// group of its own; no camera, microphone or location; and, for a client
// on HTTPS (HTTPS), Strict-Transport-Security, so the browser keeps to
// HTTPS.
func SecurityHeaders(w http.ResponseWriter, r *http.Request) {
	h := w.Header()
	h.Set("Content-Security-Policy", ContentSecurityPolicy)
	h.Set("X-Frame-Options", "DENY")
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	h.Set("Cross-Origin-Resource-Policy", "same-origin")
	h.Set("Permissions-Policy", "camera=(), microphone=(), geolocation=(), payment=()")
	if HTTPS(r) {
		h.Set("Strict-Transport-Security", "max-age=31536000")
	}
}

// Secured sets SecurityHeaders on every answer of h.
func Secured(h http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		SecurityHeaders(w, r)
		h.ServeHTTP(w, r)
	})
}

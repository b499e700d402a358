package openapi

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strings"
	"time"
)

// Limits of fetching a remote document (kitgen openapi -remote).
const (
	// RemoteTimeout bounds the fetch of one remote document.
	RemoteTimeout = 30 * time.Second
	// MaxRemoteSize bounds the size of one remote document.
	MaxRemoteSize = 64 << 20
)

// isRemote reports whether a $ref's file part or a spec names a URL.
func isRemote(s string) bool {
	return strings.Contains(s, "://") || strings.HasPrefix(s, "//")
}

// fetchRemote reads one http or https document. The URL in messages has
// no user information: credentials in a URL are a secret.
func fetchRemote(ctx context.Context, client *http.Client, raw string) ([]byte, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, fmt.Errorf("fetch remote document: %w", err)
	}
	shown := *u
	shown.User = nil
	if u.Scheme != "http" && u.Scheme != "https" {
		return nil, fmt.Errorf("fetch %s: only http and https documents are fetched", shown.Redacted())
	}
	ctx, cancel := context.WithTimeout(ctx, RemoteTimeout)
	defer cancel()
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", shown.Redacted(), err)
	}
	req.Header.Set("Accept", "application/json, application/yaml, application/vnd.oai.openapi, */*")
	resp, err := client.Do(req)
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err // the URL is in our own text, without user information
		}
		return nil, fmt.Errorf("fetch %s: %w", shown.Redacted(), err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != http.StatusOK {
		return nil, fmt.Errorf("fetch %s: %s", shown.Redacted(), resp.Status)
	}
	data, err := io.ReadAll(io.LimitReader(resp.Body, MaxRemoteSize+1))
	if err != nil {
		return nil, fmt.Errorf("fetch %s: %w", shown.Redacted(), err)
	}
	if len(data) > MaxRemoteSize {
		return nil, fmt.Errorf("fetch %s: larger than %d MiB", shown.Redacted(), MaxRemoteSize>>20)
	}
	return data, nil
}

// redactRef returns a $ref as messages show it: a URL without its user
// information.
func redactRef(ref string) string {
	if !isRemote(ref) {
		return ref
	}
	u, err := url.Parse(ref)
	if err != nil || u.User == nil {
		return ref
	}
	u.User = nil
	return u.String()
}

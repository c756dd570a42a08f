// Signs in the way HCP's Go SDK does (golang.org/x/oauth2/clientcredentials), then calls the API with the token.
// Usage: oauth2-go BASE_URL CLIENT_ID CLIENT_SECRET header|params|auto
// Prints one JSON line: the token's type, seconds left, and the API's answer to GET /api/v2/authenticate; or the error.
package main

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/url"
	"os"
	"time"

	"golang.org/x/oauth2"
	"golang.org/x/oauth2/clientcredentials"
)

type result struct {
	TokenType string `json:"token_type,omitempty"`
	Seconds   int    `json:"seconds,omitempty"`
	Status    int    `json:"status,omitempty"`
	Body      string `json:"body,omitempty"`
	Error     string `json:"error,omitempty"`
}

func main() {
	base, id, secret, style := os.Args[1], os.Args[2], os.Args[3], os.Args[4]
	styles := map[string]oauth2.AuthStyle{
		"header": oauth2.AuthStyleInHeader,
		"params": oauth2.AuthStyleInParams,
		"auto":   oauth2.AuthStyleAutoDetect,
	}
	cfg := clientcredentials.Config{
		ClientID:       id,
		ClientSecret:   secret,
		TokenURL:       base + "/oauth2/token",
		EndpointParams: url.Values{"audience": {"https://api.hashicorp.cloud"}},
		AuthStyle:      styles[style],
	}
	ctx := context.Background()
	out := result{}
	tok, err := cfg.Token(ctx)
	if err != nil {
		out.Error = err.Error()
	} else {
		out.TokenType = tok.Type()
		out.Seconds = int(time.Until(tok.Expiry).Round(time.Second).Seconds())
		res, err := cfg.Client(ctx).Get(base + "/api/v2/authenticate")
		if err != nil {
			out.Error = err.Error()
		} else {
			body, _ := io.ReadAll(res.Body)
			res.Body.Close()
			out.Status, out.Body = res.StatusCode, string(body)
		}
	}
	line, _ := json.Marshal(out)
	fmt.Println(string(line))
}

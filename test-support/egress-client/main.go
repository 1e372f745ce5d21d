// A small HTTP client for the egress tests, put into a box: GET URL [NAME=VALUE header…] through
// the proxy the environment names (HTTP(S)_PROXY, NO_PROXY), trusting the CAs of SSL_CERT_FILE, as
// Go's net/http and crypto/x509 do by themselves. Prints the answer's body, or "error: …" (exit 1).
package main

import (
	"fmt"
	"io"
	"net/http"
	"os"
	"strings"
)

func main() {
	req, err := http.NewRequest("GET", os.Args[1], nil)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	for _, h := range os.Args[2:] {
		name, value, _ := strings.Cut(h, "=")
		req.Header.Set(name, value)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		fmt.Println("error:", err)
		os.Exit(1)
	}
	body, _ := io.ReadAll(res.Body)
	fmt.Print(string(body))
}

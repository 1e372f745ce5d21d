// A small HTTP client for the egress tests and bench, put into a box: GET URL [NAME=VALUE header…]
// through the proxy the environment names (HTTP(S)_PROXY, NO_PROXY), trusting the CAs of
// SSL_CERT_FILE, as Go's net/http and crypto/x509 do by themselves. Prints the answer's body, or
// "error: …" (exit 1). With EGRESS_CLIENT_N=N it makes N sequential GETs on kept-alive
// connections and prints {"latencies_ms": [...], "seconds": S} instead.
package main

import (
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"os"
	"strconv"
	"strings"
	"time"
)

func get(url string, headers []string) ([]byte, error) {
	req, err := http.NewRequest("GET", url, nil)
	if err != nil {
		return nil, err
	}
	for _, h := range headers {
		name, value, _ := strings.Cut(h, "=")
		req.Header.Set(name, value)
	}
	res, err := http.DefaultClient.Do(req)
	if err != nil {
		return nil, err
	}
	defer res.Body.Close()
	body, err := io.ReadAll(res.Body)
	if err == nil && res.StatusCode >= 400 && os.Getenv("EGRESS_CLIENT_N") != "" {
		err = fmt.Errorf("HTTP %d: %s", res.StatusCode, body)
	}
	return body, err
}

func fail(err error) {
	fmt.Println("error:", err)
	os.Exit(1)
}

func main() {
	n, _ := strconv.Atoi(os.Getenv("EGRESS_CLIENT_N"))
	if n <= 0 {
		body, err := get(os.Args[1], os.Args[2:])
		if err != nil {
			fail(err)
		}
		fmt.Print(string(body))
		return
	}
	latencies := make([]float64, 0, n)
	start := time.Now()
	for i := 0; i < n; i++ {
		t := time.Now()
		if _, err := get(os.Args[1], os.Args[2:]); err != nil {
			fail(err)
		}
		latencies = append(latencies, float64(time.Since(t).Microseconds())/1000)
	}
	out, _ := json.Marshal(map[string]any{"latencies_ms": latencies, "seconds": time.Since(start).Seconds()})
	fmt.Println(string(out))
}

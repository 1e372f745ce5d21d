// A small HTTP server for the bench's publish scenario, run inside a box: it keeps
// connections alive (busybox httpd closes each after one answer), so the bench can measure
// the proxy against a direct connection with keep-alive on both sides. Standard library only.
//
//	GET /index.html  1 KiB of text
//	GET /big         100 MiB of zeros, with its Content-Length
package main

import (
	"bytes"
	"flag"
	"log"
	"net/http"
	"strconv"
)

func main() {
	addr := flag.String("addr", ":8080", "address to listen on")
	flag.Parse()

	small := bytes.Repeat([]byte("boxdesk\n"), 128) // 1 KiB
	chunk := make([]byte, 1<<20)
	const bigChunks = 100

	http.HandleFunc("/index.html", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Length", strconv.Itoa(len(small)))
		_, _ = w.Write(small)
	})
	http.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "application/octet-stream")
		w.Header().Set("Content-Length", strconv.Itoa(bigChunks*len(chunk)))
		for i := 0; i < bigChunks; i++ {
			if _, err := w.Write(chunk); err != nil {
				return
			}
		}
	})
	log.Fatal(http.ListenAndServe(*addr, nil))
}

module boxdesk.dev/bench/keepalive-server

go 1.19

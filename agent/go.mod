module boxdesk.dev/agent

go 1.19

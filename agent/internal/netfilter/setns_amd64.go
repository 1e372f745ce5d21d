package netfilter

const sysSetns = 308

package netfilter

const sysSetns = 268

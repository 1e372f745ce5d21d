package store

const sysRenameat2 = 316

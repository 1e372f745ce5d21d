package box

import (
	"runtime"
	"sync"
)

// reservedThreads is how many OS threads the agent makes as it starts, beyond the ones Go starts
// with: enough for the execs, terminals and file calls a box runs at once to block in system calls
// side by side without the runtime needing another thread.
const reservedThreads = 6

// reserveThreads makes the Go runtime start n OS threads now, while the box has room for them.
// The runtime keeps the threads it no longer needs and uses them again, and it cannot survive
// failing to make a new one ("failed to create new OS thread" is fatal). A fork bomb in the box
// takes every process slot its pids limit allows; the agent, the box's first process, must not
// need a new thread then, or the box dies with it.
func reserveThreads(n int) {
	var locked, release sync.WaitGroup
	locked.Add(n)
	release.Add(1)
	done := make(chan struct{}, n)
	for i := 0; i < n; i++ {
		go func() {
			// A goroutine locked to its thread holds that thread while it waits: n of them at
			// once need n threads. Unlocked before it returns, its thread goes back to the
			// runtime's idle ones instead of ending.
			runtime.LockOSThread()
			locked.Done()
			release.Wait()
			runtime.UnlockOSThread()
			done <- struct{}{}
		}()
	}
	locked.Wait()
	release.Done()
	for i := 0; i < n; i++ {
		<-done
	}
}

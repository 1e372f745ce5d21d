package edge

import (
	"context"
	"net"
	"testing"
	"time"
)

// Two listeners on one port (the Node proxy's, then a restarted edge's): once the edge steers the
// group to itself, every new connection is its own, none queued on the other (which would reset
// them as it closes). Without the steering the kernel spreads them over both.
func TestSteerToSelfTakesEveryNewConnection(t *testing.T) {
	lc := net.ListenConfig{Control: shareAddress}
	node, err := lc.Listen(context.Background(), "tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer node.Close()
	edge, err := lc.Listen(context.Background(), "tcp", node.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	defer edge.Close()

	count := func(l net.Listener, into chan<- struct{}) {
		for {
			c, err := l.Accept()
			if err != nil {
				return
			}
			into <- struct{}{}
			c.Close()
		}
	}
	toNode, toEdge := make(chan struct{}, 100), make(chan struct{}, 100)
	go count(node, toNode)
	go count(edge, toEdge)
	dial := func(n int) {
		for i := 0; i < n; i++ {
			c, err := net.Dial("tcp", node.Addr().String())
			if err != nil {
				t.Fatal(err)
			}
			c.Close()
		}
		time.Sleep(200 * time.Millisecond)
	}

	dial(40)
	if len(toNode) == 0 || len(toEdge) == 0 {
		t.Fatalf("without steering both listeners take some: node %d, edge %d", len(toNode), len(toEdge))
	}
	for len(toNode) > 0 {
		<-toNode
	}
	for len(toEdge) > 0 {
		<-toEdge
	}
	if err := steerToSelf(edge); err != nil {
		t.Fatal(err)
	}
	dial(40)
	if len(toNode) != 0 || len(toEdge) != 40 {
		t.Fatalf("steered: node took %d, edge %d of 40", len(toNode), len(toEdge))
	}
}

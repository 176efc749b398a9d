// volperf-ycsb: go-ycsb's load and run phases against Redis only (go-ycsb's own command
// links every database binding it knows, some of which need C libraries). The core
// workload, its properties and the measurements are go-ycsb's own; this main only wires
// them together as go-ycsb's cmd/go-ycsb does, and writes the measurements as JSON.
//
// Usage: volperf-ycsb load|run -P workload -p name=value ...
package main

import (
	"context"
	"fmt"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"github.com/magiconair/properties"
	"github.com/pingcap/go-ycsb/pkg/client"
	"github.com/pingcap/go-ycsb/pkg/measurement"
	"github.com/pingcap/go-ycsb/pkg/prop"
	"github.com/pingcap/go-ycsb/pkg/ycsb"

	_ "github.com/pingcap/go-ycsb/db/redis"
	_ "github.com/pingcap/go-ycsb/pkg/workload"
)

func fail(format string, args ...interface{}) {
	fmt.Fprintf(os.Stderr, "volperf-ycsb: "+format+"\n", args...)
	os.Exit(2)
}

func main() {
	if len(os.Args) < 2 || (os.Args[1] != "load" && os.Args[1] != "run") {
		fail("usage: volperf-ycsb load|run [-P file]... [-p name=value]...")
	}
	command := os.Args[1]
	props := properties.NewProperties()
	args := os.Args[2:]
	for i := 0; i < len(args); i++ {
		if i+1 >= len(args) {
			fail("%s needs a value", args[i])
		}
		switch args[i] {
		case "-P":
			loaded, err := properties.LoadFile(args[i+1], properties.UTF8)
			if err != nil {
				fail("reading %s: %v", args[i+1], err)
			}
			props.Merge(loaded)
		case "-p":
			pair := strings.SplitN(args[i+1], "=", 2)
			if len(pair) != 2 {
				fail("bad property %q, expected name=value", args[i+1])
			}
			props.Set(pair[0], pair[1])
		default:
			fail("unknown argument %q", args[i])
		}
		i++
	}
	doTransactions := "false"
	if command == "run" {
		doTransactions = "true"
	}
	props.Set(prop.DoTransactions, doTransactions)
	props.Set(prop.Command, command)

	measurement.InitMeasure(props)
	name := props.GetString(prop.Workload, "core")
	workload, err := ycsb.GetWorkloadCreator(name).Create(props)
	if err != nil {
		fail("workload %s: %v", name, err)
	}
	db, err := ycsb.GetDBCreator("redis").Create(props)
	if err != nil {
		fail("redis: %v", err)
	}
	wrapped := client.DbWrapper{DB: db}

	ctx, cancel := context.WithCancel(context.Background())
	signals := make(chan os.Signal, 1)
	signal.Notify(signals, syscall.SIGINT, syscall.SIGTERM)
	go func() {
		<-signals
		cancel()
	}()

	for _, key := range props.Keys() {
		fmt.Printf("property %s=%s\n", key, props.GetString(key, ""))
	}
	started := time.Now()
	client.NewClient(props, workload, wrapped).Run(ctx)
	fmt.Printf("volperf-ycsb %s took %.3f s\n", command, time.Since(started).Seconds())
	measurement.Output()
	wrapped.Close()
	workload.Close()
}

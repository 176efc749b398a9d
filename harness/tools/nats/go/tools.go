//go:build tools

package tools

import (
	_ "github.com/nats-io/nats-server/v2"
	_ "github.com/nats-io/natscli/nats"
)

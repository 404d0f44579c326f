// Command fiber serves a charge route behind Fiber's idempotency
// middleware (github.com/gofiber/fiber/v2/middleware/idempotency) with its
// default configuration: the X-Idempotency-Key header (a 36-character
// UUID), an in-memory lock and store. The handler counts its own effect
// per key, which GET /effects?key=K and GET /doubled report. It prints the
// port it listens on (127.0.0.1 only), then serves until killed.
//
// It is its own module so that the main module does not depend on Fiber.
package main

import (
	"fmt"
	"net"
	"os"
	"strconv"
	"sync"
	"time"

	"github.com/gofiber/fiber/v2"
	"github.com/gofiber/fiber/v2/middleware/idempotency"
	"github.com/gofiber/fiber/v2/utils"
)

// window is the handler's work: at least 5 ms between the middleware's
// check and the stored response, as every ground-truth target has.
const window = 6 * time.Millisecond

func main() {
	var mu sync.Mutex
	effects := map[string]int{}
	app := fiber.New(fiber.Config{DisableStartupMessage: true})
	app.Use(idempotency.New())
	app.Post("/charges", func(c *fiber.Ctx) error {
		time.Sleep(window)
		// Fiber's strings point into buffers it reuses after the
		// handler returns: a map key must be a copy.
		key := utils.CopyString(c.Get("X-Idempotency-Key"))
		mu.Lock()
		effects[key]++
		mu.Unlock()
		return c.Status(fiber.StatusCreated).JSON(fiber.Map{"status": "charged"})
	})
	app.Get("/effects", func(c *fiber.Ctx) error {
		mu.Lock()
		defer mu.Unlock()
		return c.SendString(strconv.Itoa(effects[c.Query("key")]))
	})
	app.Get("/doubled", func(c *fiber.Ctx) error {
		mu.Lock()
		defer mu.Unlock()
		n := 0
		for _, v := range effects {
			if v > 1 {
				n++
			}
		}
		return c.SendString(strconv.Itoa(n))
	})
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
	fmt.Println(ln.Addr().(*net.TCPAddr).Port)
	if err := app.Listener(ln); err != nil {
		fmt.Fprintln(os.Stderr, err)
		os.Exit(1)
	}
}

import SeekHosts

// `seek serve` and `seek mcp` run here (`seek` replaces itself with this executable), so the web
// server and the MCP SDK stay out of every short `seek` start.
await SeekHostsMain.main()

"""Python's MCP SDK as a desktop client uses Sandpit's local MCP server: starts
it over stdio, lists the tools and calls them. Run by tests/e2e/mcp-app-stdio.test.mjs,
which checks what this prints (one JSON object)."""

import asyncio
import json
import sys

from mcp.client.stdio import stdio_client

from mcp import ClientSession, StdioServerParameters


async def main(server: str, code: str) -> None:
    params = StdioServerParameters(command="node", args=[server, "--port", "0"])
    async with stdio_client(params) as (read, write), ClientSession(read, write) as session:
        await session.initialize()
        tools = await session.list_tools()
        result = await session.call_tool("run_python", {"code": code, "timeout_seconds": 1})
        print(
            json.dumps(
                {
                    "tools": [{"name": t.name, "meta": t.meta, "schema": t.input_schema} for t in tools.tools],
                    "isError": result.is_error,
                    "text": [c.text for c in result.content if c.type == "text"],
                }
            )
        )


if __name__ == "__main__":
    asyncio.run(main(sys.argv[1], sys.argv[2]))

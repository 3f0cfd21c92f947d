"""The official Python MCP client (the `mcp` package) against a gateway's /mcp, for test/integration/mcp-python.test.ts.

Usage: mcp_client.py <mcp url> <api key> <query arguments as JSON>. Initializes, lists the tools (each input schema
checked as JSON Schema 2020-12 by the `jsonschema` package, and the query arguments validated against the query
tool's), calls `query` with the arguments and `count` on a topic that does not exist, and prints one JSON object:
the server's name, the tools, the query's answer text and the tool error's.
"""

import asyncio
import json
import sys

import httpx2
import jsonschema
from mcp import ClientSession
from mcp.client.streamable_http import streamable_http_client


async def main(url: str, key: str, query_args: dict) -> dict:
    http = httpx2.AsyncClient(headers={"Authorization": f"Bearer {key}"})
    async with http, streamable_http_client(url, http_client=http) as (read, write):
        async with ClientSession(read, write) as session:
            init = await session.initialize()
            tools = (await session.list_tools()).tools
            schemas = {}
            for tool in tools:
                jsonschema.Draft202012Validator.check_schema(tool.input_schema)
                schemas[tool.name] = tool.input_schema
            jsonschema.Draft202012Validator(schemas["query"]).validate(query_args)
            answer = await session.call_tool("query", query_args)
            failed = await session.call_tool("count", {"topic": "no-such-topic"})
            return {
                "server": init.server_info.name,
                "tools": sorted(t.name for t in tools),
                "query": {"isError": bool(answer.is_error), "text": answer.content[0].text},
                "failed": {"isError": bool(failed.is_error), "text": failed.content[0].text},
            }


if __name__ == "__main__":
    print(json.dumps(asyncio.run(main(sys.argv[1], sys.argv[2], json.loads(sys.argv[3])))))

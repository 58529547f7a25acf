# async def, await, async for/with, async comprehensions.
import asyncio


async def fetch(session, url):
    async with session.get(url) as response, lock:
        data = await response.read()
    async for item in stream():
        yield item
    result = [x async for x in aiter() if await check(x)]
    return await asyncio.gather(*(g() for g in jobs)), data, result


async def main():
    await asyncio.sleep(0)
    async with a as (b, c):
        pass
    async for i, j in pairs():
        break
    else:
        pass

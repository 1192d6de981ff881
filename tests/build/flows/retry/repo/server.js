require("http").createServer((_, res) => res.end("shop")).listen(process.env.PORT);

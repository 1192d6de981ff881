console.log("working");

fn main() {
    println!("listening on :8080");
}

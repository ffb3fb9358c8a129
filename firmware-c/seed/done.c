/* Seed board: the shortest run — main returns at once and start.S stores DONE. */
int main(void) { return 0; }

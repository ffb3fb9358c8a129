/* Seed board: a firmware that never stores DONE (only --max-cycles ends it: status 162). */
int main(void) {
  for (;;) __asm__ volatile("");
}

// Types for the parts of elf-tools (plain JavaScript) that the loader uses.
declare module 'elf-tools' {
  interface ProgramHeader {
    type: string; offset: number; vaddr: number; paddr: number;
    filesz: number; memsz: number; align: number;
  }
  interface SectionHeader {
    name: string; type: string; addr: number; offset: number; size: number;
    link: number; info: number; addralign: number; entsize: number;
  }
  interface ParsedElf {
    header: { entry: number; type: string; machine: string | undefined };
    programs: { header: ProgramHeader; data: Buffer }[];
    sections: { header: SectionHeader; data: Buffer }[];
  }
  function parse(image: Buffer): ParsedElf;
  const elfTools: { parse: typeof parse };
  export default elfTools;
}

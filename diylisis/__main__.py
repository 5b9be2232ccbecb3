from diylisis.cli import main

main()

print("untangle")

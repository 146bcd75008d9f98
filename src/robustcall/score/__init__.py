"""robustcall.score"""
